#include "Compiler.h"

#include "BuildOptions.h"
#include "Cache.h"
#include "Frontend.h"
#include "KernelSummaries.h"
#include "PrepareIR.h"
#include "RegionAnnotator.h"

#include <llvm/IR/Module.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>

#include <sys/stat.h>

#ifndef LIBSPLIT_CLANG_RESOURCE_DIR
#define LIBSPLIT_CLANG_RESOURCE_DIR "/usr/lib/llvm-16/lib/clang/16"
#endif
#ifndef LIBSPLIT_VERSION
#define LIBSPLIT_VERSION "0.0.0"
#endif

namespace libsplit::cc {

std::string toolVersion() { return std::string("libsplit-cc ") + LIBSPLIT_VERSION; }

namespace {

std::string resourceDirOf(const CompileRequest& r) {
  return r.resourceDir.empty() ? LIBSPLIT_CLANG_RESOURCE_DIR : r.resourceDir;
}

// Size and modification time of the running executable: a rebuilt tool (new
// analysis) never reads entries an older build wrote.
std::string executableIdentity() {
  struct stat st {};
  if (::stat("/proc/self/exe", &st) != 0) return "?";
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

std::string cacheKey(const CompileRequest& r) {
  llvm::SHA256 h;
  auto add = [&](const std::string& s) {
    h.update(std::to_string(s.size()));
    h.update(":");
    h.update(s);
  };
  add("libsplit-cc cache key 1");
  add(toolVersion());
  add(executableIdentity());
  add(resourceDirOf(r));
  add(r.verifyRewrite ? "verify" : "noverify");
  for (const auto& o : filterBuildOptions(r.buildOptions).clang) add(o);
  add(r.source);
  auto digest = h.final();
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : digest) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

std::string retargetLineDirective(const std::string& source, const std::string& path) {
  const std::string marker = "\n#line 1 \"";
  size_t start = source.find(marker);
  if (start == std::string::npos) return source;
  size_t eol = source.find('\n', start + 1);
  if (eol == std::string::npos) return source;
  std::string name;
  for (char c : path) {
    if (c == '"' || c == '\\') name += '\\';
    if (c != '\n') name += c;
  }
  return source.substr(0, start) + marker + name + "\"" + source.substr(eol);
}

CompileResult compileProgram(const CompileRequest& request) {
  CompileResult result;
  FilteredOptions options = filterBuildOptions(request.buildOptions);
  result.ignoredOptions = options.ignored;

  std::optional<Cache> cache;
  std::string key;
  if (request.useCache) {
    cache.emplace(request.cacheDir.empty() ? Cache::defaultDir() : request.cacheDir);
    key = cacheKey(request);
    if (auto entry = cache->load(key)) {
      if (auto summary = parse_summary(entry->summaryJson)) {
        result.ok = true;
        result.fromCache = true;
        result.partitionReady = retargetLineDirective(entry->partitionReady, request.inputPath);
        result.summary = std::move(*summary);
        result.summaryJson = std::move(entry->summaryJson);
        return result;
      }
    }
  }

  FrontendInput in{request.inputPath, request.source, options.clang, resourceDirOf(request)};
  FrontendOutput fe = runFrontend(in);
  result.diagnostics = fe.diagnostics;
  if (!fe.ok) {
    result.error = fe.error.empty() ? "compilation failed" : fe.error;
    return result;
  }

  if (request.verifyRewrite) {
    FrontendInput check = in;
    check.source = fe.partitionReady;
    std::string diags;
    if (!checkCompiles(check, &diags)) {
      result.error = "internal error: the partition-ready program does not compile:\n" + diags;
      return result;
    }
  }

  ProgramSummary& summary = result.summary;
  summary.tool = toolVersion();
  summary.kernels = std::move(fe.kernels);
  prepareModule(*fe.module);
  addIRFacts(*fe.module, summary);
  annotateRegions(*fe.module, summary);
  if (request.inspectModule) request.inspectModule(*fe.module, summary);

  result.partitionReady = std::move(fe.partitionReady);
  result.summaryJson = to_json(summary);
  result.ok = true;
  if (cache) {
    std::string err;
    if (!cache->store(key, {result.partitionReady, result.summaryJson, fileStamps(fe.includedFiles)},
                      &err))
      result.cacheWarning = err;
  }
  return result;
}

}  // namespace libsplit::cc
