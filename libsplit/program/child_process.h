// The helper programs the shim runs (libsplit-cc, libsplit-build): found next
// to libsplit.so, spawned without a shell and without the shim preloaded,
// waited for on the calling (background) thread, and killed when the app ends
// (their results would not be used, and nothing of theirs touches the app's
// process).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace libsplit {

// Path of helper `name`: `configured` if given (empty when not executable),
// else next to libsplit.so, where the install puts it relative to libsplit.so
// (libexec/libsplit/), ../passes/ of it (build tree), then PATH.
std::string find_helper(const std::string& name, const std::string& configured = "");

struct ChildExit {
  int spawn_error = 0;  // errno of posix_spawn; 0 when it started
  bool exited = false;  // exited normally (not killed)
  int status = -1;      // its exit status then
};

// Runs argv[0] with argv, stdout and stderr into `log`, in the app's
// environment with `env` ("NAME=VALUE") set; returns when it ends.
ChildExit run_helper(std::vector<std::string> argv, const std::string& log,
                     const std::vector<std::string>& env = {});

// A private temporary directory for one helper run (under $TMPDIR, else
// /tmp) where its input, output and log go; removed with every file named
// through it when this goes.
class HelperDir {
 public:
  explicit HelperDir(const std::string& prefix);
  ~HelperDir();
  HelperDir(const HelperDir&) = delete;
  HelperDir& operator=(const HelperDir&) = delete;
  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  // The path of file `name` in it (removed at the end).
  std::string file(const std::string& name);
  bool write(const std::string& name, const std::string& bytes);
  // The file's bytes; nullopt when it cannot be read.
  std::optional<std::string> read(const std::string& name);

 private:
  std::string path_;
  std::vector<std::string> files_;
};

// Kills every helper being waited for (the app is exiting); how many.
unsigned stop_helpers();

}  // namespace libsplit
