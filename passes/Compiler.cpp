#include "Compiler.h"

#include "BuildOptions.h"
#include "Cache.h"
#include "DeviceMacros.h"
#include "Frontend.h"
#include "KernelSummaries.h"
#include "PrepareIR.h"
#include "RegionAnnotator.h"
#include "SummaryMerge.h"

#include <llvm/IR/Module.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <optional>
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
  add("libsplit-cc cache key 2");
  add(toolVersion());
  add(executableIdentity());
  add(resourceDirOf(r));
  add(r.verifyRewrite ? "verify" : "noverify");
  for (const auto& o : filterBuildOptions(r.buildOptions).clang) add(o);
  // The analysis depends on each device's predefined macros.
  std::string err;
  for (const auto& spec : r.deviceMacroSets) {
    auto set = parseDeviceMacros(spec, &err);
    add(set ? "device macros " + set->canonical() : "bad device macros " + spec);
  }
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

  // The macro sets to analyse under; one empty set: Clang's own macros.
  std::vector<std::optional<DeviceMacroSet>> sets;
  for (const auto& spec : request.deviceMacroSets) {
    std::string err;
    auto set = parseDeviceMacros(spec, &err);
    if (!set) {
      result.error = err;
      return result;
    }
    bool seen = false;
    for (const auto& s : sets) seen |= s->canonical() == set->canonical();
    if (!seen) sets.push_back(std::move(set));
  }
  if (sets.empty()) sets.emplace_back(std::nullopt);

  std::vector<ProgramSummary> summaries;
  std::vector<std::string> included;
  std::string failures;  // sets under which the program does not compile
  for (const auto& set : sets) {
    FrontendInput in{request.inputPath, request.source, options.clang, resourceDirOf(request), ""};
    if (set) {
      DeviceMacroSetup setup = deviceMacroSetup(*set, options.clang);
      in.clangOptions.insert(in.clangOptions.begin(), setup.clangArgs.begin(), setup.clangArgs.end());
      in.deviceMacroHeader = setup.header;
    }
    FrontendOutput fe = runFrontend(in);
    if (!fe.ok) {
      // A set under which the program does not compile is not what any
      // device compiled (its native build succeeded): skipped, as long as
      // another set compiles.
      std::string why = fe.error.empty() ? "compilation failed" : fe.error;
      if (sets.size() > 1 && set) {
        failures += "device macros " + set->canonical() + ": " + why + "\n" + fe.diagnostics;
        continue;
      }
      result.diagnostics = fe.diagnostics;
      result.error = why;
      return result;
    }
    result.diagnostics += fe.diagnostics;
    if (!summaries.empty() && fe.partitionReady != result.partitionReady) {
      result.error =
          "the partition-ready rewrite differs between the devices' predefined macro sets";
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
    ProgramSummary summary;
    summary.tool = toolVersion();
    summary.kernels = std::move(fe.kernels);
    prepareModule(*fe.module);
    addIRFacts(*fe.module, summary);
    annotateRegions(*fe.module, summary);
    if (request.inspectModule) request.inspectModule(*fe.module, summary);
    result.partitionReady = std::move(fe.partitionReady);
    included.insert(included.end(), fe.includedFiles.begin(), fe.includedFiles.end());
    summaries.push_back(std::move(summary));
  }
  if (summaries.empty()) {
    result.diagnostics = failures;
    result.error = "compilation failed under every device macro set";
    return result;
  }
  result.summary = mergeSummaries(summaries);
  std::sort(included.begin(), included.end());
  included.erase(std::unique(included.begin(), included.end()), included.end());

  result.summaryJson = to_json(result.summary);
  result.ok = true;
  if (cache) {
    std::string err;
    if (!cache->store(key, {result.partitionReady, result.summaryJson, fileStamps(included)},
                      &err))
      result.cacheWarning = err;
  }
  return result;
}

}  // namespace libsplit::cc
