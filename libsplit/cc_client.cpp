#include "cc_client.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>

#include <atomic>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

// Where the installed libsplit-cc lies, relative to the installed libsplit.so
// (the build computes it from the install directories).
#ifndef LIBSPLIT_CC_FROM_SHIM
#define LIBSPLIT_CC_FROM_SHIM "../../libexec/libsplit"
#endif

namespace libsplit {

namespace {
std::atomic<pid_t> g_running{0};  // the libsplit-cc child being waited for
}  // namespace

void stop_running_cc() {
  // Its cache entry is written atomically (temporary file + rename): a
  // killed compile leaves nothing half-written.
  if (pid_t pid = g_running.load()) kill(pid, SIGKILL);
}

namespace {

bool executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

std::string read_file(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

// The directory of libsplit.so itself, links resolved (LD_PRELOAD may name a
// symbolic link to the installed file).
std::string our_directory() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&find_cc), &info) || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  if (char* real = realpath(path.c_str(), nullptr)) {
    path = real;
    free(real);
  }
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace


std::string find_cc(const std::string& configured) {
  if (!configured.empty()) return executable(configured) ? configured : "";
  std::string dir = our_directory();
  for (const std::string& p : {dir + "/libsplit-cc", dir + "/" LIBSPLIT_CC_FROM_SHIM "/libsplit-cc",
                               dir + "/../passes/libsplit-cc"})
    if (executable(p)) return p;
  if (const char* path = std::getenv("PATH")) {
    std::string all = path;
    size_t start = 0;
    while (start <= all.size()) {
      size_t colon = all.find(':', start);
      if (colon == std::string::npos) colon = all.size();
      std::string p = all.substr(start, colon - start) + "/libsplit-cc";
      if (executable(p)) return p;
      start = colon + 1;
    }
  }
  return "";
}

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
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  // The compiler does not need the shim preloaded into it.
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) envp.push_back(*e);
  envp.push_back(nullptr);
  int rc = posix_spawn(&pid, cc.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (rc == 0) {
    g_running = pid;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    g_running = 0;
  }
  bool ok1 = false, ok2 = false, ok3 = false;
  std::string diagnostics = read_file(log, &ok3);
  if (rc != 0) {
    r.error = "cannot spawn " + cc + ": " + std::strerror(rc);
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
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
