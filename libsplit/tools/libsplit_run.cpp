// libsplit-run [options] -- ./app args: runs the app with libsplit preloaded.
// Options become LIBSPLIT_* variables; the app is exec'd directly (no shell).
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::string self_dir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  buf[n] = '\0';
  std::string p = buf;
  return p.substr(0, p.rfind('/'));
}

// Where the installed libsplit.so lies, relative to the installed
// libsplit-run (the build computes it from the install directories).
#ifndef LIBSPLIT_SHIM_FROM_BIN
#define LIBSPLIT_SHIM_FROM_BIN "../lib/libsplit"
#endif

// libsplit.so next to us (build tree, scripts/device-pack.sh) or where the
// install put it. Only paths relative to this executable: an installed copy
// never falls back to a build tree.
std::string find_shim() {
  const std::string dir = self_dir();
  for (std::string p : {dir + "/libsplit.so", dir + "/" LIBSPLIT_SHIM_FROM_BIN "/libsplit.so"})
    if (access(p.c_str(), R_OK) == 0) {
      char real[PATH_MAX];
      return realpath(p.c_str(), real) ? real : p;
    }
  return "";
}

int usage() {
  fputs("usage: libsplit-run [--devices SPEC] [--scheduler NAME] [--trace FILE.csv]\n"
        "                    [--timeline FILE.json] [--log] [--disable] -- ./app [args...]\n",
        stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* var) {
      if (i + 1 >= argc) return false;
      setenv(var, argv[++i], 1);
      return true;
    };
    if (a == "--") {
      ++i;
      break;
    } else if (a == "--devices") {
      if (!value("LIBSPLIT_DEVICES")) return usage();
    } else if (a == "--scheduler") {
      if (!value("LIBSPLIT_SCHEDULER")) return usage();
    } else if (a == "--trace") {
      if (!value("LIBSPLIT_TRACE")) return usage();
    } else if (a == "--timeline") {
      if (!value("LIBSPLIT_TIMELINE")) return usage();
    } else if (a == "--log") {
      setenv("LIBSPLIT_LOG", "1", 1);
    } else if (a == "--disable") {
      setenv("LIBSPLIT_DISABLE", "1", 1);
    } else if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else {
      break;  // first non-option: the app
    }
  }
  if (i >= argc) return usage();
  std::string shim = find_shim();
  if (shim.empty()) {
    fprintf(stderr, "libsplit-run: cannot find libsplit.so in %s or %s/%s\n", self_dir().c_str(),
            self_dir().c_str(), LIBSPLIT_SHIM_FROM_BIN);
    return 1;
  }
  const char* old = std::getenv("LD_PRELOAD");
  std::string preload = shim + (old && *old ? std::string(":") + old : "");
  setenv("LD_PRELOAD", preload.c_str(), 1);
  execvp(argv[i], argv + i);
  fprintf(stderr, "libsplit-run: cannot run %s: %s\n", argv[i], strerror(errno));
  return 127;
}
