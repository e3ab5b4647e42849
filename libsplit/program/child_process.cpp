#include "child_process.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

extern char** environ;

// Where the installed helpers lie, relative to the installed libsplit.so
// (the build computes it from the install directories).
#ifndef LIBSPLIT_CC_FROM_SHIM
#define LIBSPLIT_CC_FROM_SHIM "../../libexec/libsplit"
#endif

namespace libsplit {

namespace {

std::mutex g_mutex;
std::set<pid_t> g_running;  // helpers being waited for
bool g_stopped = false;     // no helper starts once the app ends

bool executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

// The directory of libsplit.so itself, links resolved (LD_PRELOAD may name a
// symbolic link to the installed file).
std::string our_directory() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&find_helper), &info) || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  if (char* real = realpath(path.c_str(), nullptr)) {
    path = real;
    free(real);
  }
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

std::string find_helper(const std::string& name, const std::string& configured) {
  if (!configured.empty()) return executable(configured) ? configured : "";
  std::string dir = our_directory();
  for (const std::string& p : {dir + "/" + name, dir + "/" LIBSPLIT_CC_FROM_SHIM "/" + name,
                               dir + "/../passes/" + name})
    if (executable(p)) return p;
  if (const char* path = std::getenv("PATH")) {
    std::string all = path;
    size_t start = 0;
    while (start <= all.size()) {
      size_t colon = all.find(':', start);
      if (colon == std::string::npos) colon = all.size();
      std::string p = all.substr(start, colon - start) + "/" + name;
      if (executable(p)) return p;
      start = colon + 1;
    }
  }
  return "";
}

ChildExit run_helper(std::vector<std::string> words, const std::string& log, const std::vector<std::string>& env) {
  ChildExit out;
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  // A helper does not need the shim preloaded into it.
  auto overridden = [&](const char* entry) {
    if (std::strncmp(entry, "LD_PRELOAD=", 11) == 0) return true;
    for (const std::string& e : env)
      if (const size_t eq = e.find('='); std::strncmp(entry, e.c_str(), eq + 1) == 0) return true;
    return false;
  };
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e)
    if (!overridden(*e)) envp.push_back(*e);
  std::vector<std::string> extra = env;
  for (std::string& e : extra) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  {
    // Spawned under the lock: stop_helpers() either sees it or comes first.
    std::lock_guard lock(g_mutex);
    out.spawn_error = g_stopped ? ECANCELED
                                : posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    if (out.spawn_error == 0) g_running.insert(pid);
  }
  posix_spawn_file_actions_destroy(&actions);
  if (out.spawn_error) return out;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard lock(g_mutex);
    g_running.erase(pid);
  }
  out.exited = WIFEXITED(status);
  out.status = out.exited ? WEXITSTATUS(status) : -1;
  return out;
}

HelperDir::HelperDir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  if (mkdtemp(templ.data())) path_ = templ;
}

HelperDir::~HelperDir() {
  if (!ok()) return;
  for (const std::string& f : files_) unlink(f.c_str());
  rmdir(path_.c_str());
}

std::string HelperDir::file(const std::string& name) {
  std::string p = path_ + "/" + name;
  if (std::find(files_.begin(), files_.end(), p) == files_.end()) files_.push_back(p);
  return p;
}

bool HelperDir::write(const std::string& name, const std::string& bytes) {
  std::ofstream out(file(name), std::ios::binary);
  out << bytes;
  return static_cast<bool>(out);
}

std::optional<std::string> HelperDir::read(const std::string& name) {
  std::ifstream in(file(name), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

unsigned stop_helpers() {
  // Their outputs are written atomically (temporary file + rename): a killed
  // helper leaves nothing half-written.
  std::lock_guard lock(g_mutex);
  g_stopped = true;
  for (pid_t pid : g_running) kill(pid, SIGKILL);
  return static_cast<unsigned>(g_running.size());
}

}  // namespace libsplit
