// libsplit-cc as a library: OpenCL C program + build options in, the
// partition-ready program and its kernel summary out, through the cache.
#pragma once

#include "libsplit/summary.h"

#include <functional>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace libsplit::cc {

// "libsplit-cc <version>": goes into summaries and cache keys.
std::string toolVersion();

struct CompileRequest {
  std::string inputPath;              // file name (diagnostics, #line)
  std::string source;                 // the program text
  std::vector<std::string> buildOptions;  // the app's clBuildProgram options
  std::string resourceDir;            // empty: the configured Clang resource dir
  bool useCache = true;
  std::string cacheDir;               // empty: Cache::defaultDir()
  bool verifyRewrite = true;          // re-parse the partition-ready program
  // One SPEC per distinct set of predefined macros among the devices
  // (DeviceMacros.h); the program is analysed under each and the summaries
  // merged. Empty: Clang's own spir64 macros.
  std::vector<std::string> deviceMacroSets;
  // Called on a fresh compile (never on a cache hit) with the prepared,
  // annotated IR and the finished summary: for tools that print more (e.g.
  // a --regions option; such options should also turn the cache off).
  std::function<void(llvm::Module&, const ProgramSummary&)> inspectModule;
};

struct CompileResult {
  bool ok = false;
  bool fromCache = false;
  std::string diagnostics;            // Clang's diagnostics (errors make ok false)
  std::string error;                  // other failures, one line
  std::string partitionReady;
  ProgramSummary summary;
  std::string summaryJson;
  std::string cacheWarning;           // the cache could not be written
  std::vector<std::string> ignoredOptions;
};

CompileResult compileProgram(const CompileRequest& request);

// The cache key of a request (hex SHA-256).
std::string cacheKey(const CompileRequest& request);

// Puts the file name of the request into a cached partition-ready program
// (the name only appears in its `#line` directive).
std::string retargetLineDirective(const std::string& source, const std::string& path);

}  // namespace libsplit::cc
