#include "child.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace rt_test {

Env without_shim() {
  Env env{{"LD_PRELOAD", std::nullopt}};
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    if (entry.rfind("LIBSPLIT_", 0) == 0) env[entry.substr(0, entry.find('='))] = std::nullopt;
  }
  return env;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

ChildResult run_child(const std::vector<std::string>& argv, const Env& env, int timeout_s) {
  ChildResult r;
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    std::string s = *e;
    auto eq = s.find('=');
    if (eq != std::string::npos) vars[s.substr(0, eq)] = s.substr(eq + 1);
  }
  for (auto& [k, v] : env) {
    if (v) vars[k] = *v;
    else vars.erase(k);
  }
  std::vector<std::string> env_strings;
  for (auto& [k, v] : vars) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  char out_path[] = "/tmp/rt_test_out_XXXXXX", err_path[] = "/tmp/rt_test_err_XXXXXX";
  int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    int status = 0;
    for (;;) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) break;
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  } else {
    r.err = std::string("spawn failed: ") + std::strerror(rc);
  }
  close(out_fd);
  close(err_fd);
  r.out = read_text(out_path);
  r.err += read_text(err_path);
  unlink(out_path);
  unlink(err_path);
  return r;
}

}  // namespace rt_test
