// Runs a test app as a child process with a chosen environment and collects
// what it wrote. Used by the apps test driver only.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace apps_test {

struct ProcessResult {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;      // exit status, or -1 when killed by a signal
  int signal = 0;          // the signal that ended it, 0 if none
  std::string out;         // stdout
  std::string err;         // stderr
  std::string file;        // contents of the output file given as argv[1]
};

// Environment changes: a value sets the variable, nullopt removes it. All
// other variables of this process are passed on.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

// Runs `program args...`, with stdout/stderr captured through files in
// work_dir. Kills the child after timeout_s seconds.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          const EnvChanges& env, const std::string& work_dir,
                          double timeout_s = 90);

// A fresh private directory under $TMPDIR (or /tmp); removed by the destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string read_file(const std::string& path);

}  // namespace apps_test
