#include "cc_client.h"

#include "child_process.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace libsplit {

namespace {

std::string read_file(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

}  // namespace

std::string find_cc(const std::string& configured) { return find_helper("libsplit-cc", configured); }

CcResult run_cc(const std::string& cc, const std::string& source, const std::string& options,
                const std::vector<std::string>& device_macro_sets) {
  CcResult r;
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/libsplit-XXXXXX";
  if (!mkdtemp(templ.data())) {
    r.error = "cannot create a temporary directory";
    return r;
  }
  const std::string dir = templ;
  const std::string input = dir + "/input.cl", log = dir + "/cc.log";
  {
    std::ofstream out(input, std::ios::binary);
    out << source;
  }
  std::vector<std::string> words = {cc, "-o", dir};
  for (const auto& set : device_macro_sets) {
    words.push_back("--device-macros");
    words.push_back(set);
  }
  words.push_back(input);
  words.push_back("--");
  for (auto& w : split_options(options)) words.push_back(w);
  const ChildExit done = run_helper(std::move(words), log);
  bool ok1 = false, ok2 = false, ok3 = false;
  std::string diagnostics = read_file(log, &ok3);
  if (done.spawn_error) {
    r.error = "cannot spawn " + cc + ": " + std::strerror(done.spawn_error);
  } else if (done.status != 0) {
    r.error = "libsplit-cc failed: " + diagnostics.substr(0, 400);
  } else {
    r.partition_ready = read_file(dir + "/partition-ready.cl", &ok1);
    // Its #line directives name the input file, which lives in this run's
    // temporary directory: named plainly, the same program gives the same
    // text in every process, so the drivers' caches and libsplit's cached
    // device binaries (keyed by the text) find it again.
    const std::string temp_name = input, plain_name = "input.cl";
    for (size_t at = r.partition_ready.find(temp_name); at != std::string::npos;
         at = r.partition_ready.find(temp_name, at + plain_name.size()))
      r.partition_ready.replace(at, temp_name.size(), plain_name);
    r.summary_json = read_file(dir + "/summary.json", &ok2);
    r.ok = ok1 && ok2;
    if (!r.ok) r.error = "libsplit-cc wrote no output";
  }
  for (const char* f : {"/input.cl", "/cc.log", "/partition-ready.cl", "/summary.json"})
    unlink((dir + f).c_str());
  rmdir(dir.c_str());
  return r;
}

}  // namespace libsplit
