#include "cc_client.h"

#include "child_process.h"

#include <cstring>

namespace libsplit {

std::string find_cc(const std::string& configured) { return find_helper("libsplit-cc", configured); }

CcResult run_cc(const std::string& cc, const std::string& source, const std::string& options,
                const std::vector<std::string>& device_macro_sets) {
  CcResult r;
  HelperDir dir("libsplit");
  if (!dir.ok()) {
    r.error = "cannot create a temporary directory";
    return r;
  }
  dir.write("input.cl", source);
  const std::string input = dir.file("input.cl");
  // What libsplit-cc writes there goes with the directory, read or not.
  for (const char* output : {"partition-ready.cl", "summary.json"}) dir.file(output);
  std::vector<std::string> words = {cc, "-o", dir.path()};
  for (const auto& set : device_macro_sets) {
    words.push_back("--device-macros");
    words.push_back(set);
  }
  words.push_back(input);
  words.push_back("--");
  for (auto& w : split_options(options)) words.push_back(w);
  const ChildExit done = run_helper(std::move(words), dir.file("cc.log"));
  if (done.spawn_error) {
    r.error = "cannot spawn " + cc + ": " + std::strerror(done.spawn_error);
  } else if (done.status != 0) {
    r.error = "libsplit-cc failed: " + dir.read("cc.log").value_or("").substr(0, 400);
  } else {
    auto partition_ready = dir.read("partition-ready.cl");
    auto summary = dir.read("summary.json");
    r.ok = partition_ready && summary;
    if (!r.ok) {
      r.error = "libsplit-cc wrote no output";
      return r;
    }
    r.partition_ready = std::move(*partition_ready);
    r.summary_json = std::move(*summary);
    // Its #line directives name the input file, which lives in this run's
    // temporary directory: named plainly, the same program gives the same
    // text in every process, so the drivers' caches and libsplit's cached
    // device binaries (keyed by the text) find it again.
    const std::string plain_name = "input.cl";
    for (size_t at = r.partition_ready.find(input); at != std::string::npos;
         at = r.partition_ready.find(input, at + plain_name.size()))
      r.partition_ready.replace(at, input.size(), plain_name);
  }
  return r;
}

}  // namespace libsplit
