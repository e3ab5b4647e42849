#include "libsplit/cache_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace libsplit {

std::string cache_dir(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (const char* d = std::getenv("LIBSPLIT_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/libsplit";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/libsplit";
  return "/tmp/libsplit-cache-" + std::to_string(::getuid());
}

bool make_directories(const std::string& dir, unsigned mode) {
  for (size_t pos = 0; pos != std::string::npos;) {
    pos = dir.find('/', pos + 1);
    std::string p = dir.substr(0, pos);
    if (!p.empty() && ::mkdir(p.c_str(), mode_t(mode)) != 0 && errno != EEXIST) return false;
  }
  return true;
}

bool write_private_file(const std::string& dir, const std::string& name, const std::string& bytes,
                        std::string* why) {
  if (!make_directories(dir, 0700)) {
    *why = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  std::string tmp = dir + "/.tmp-" + name.substr(0, 16) + "-XXXXXX";
  int fd = ::mkstemp(tmp.data());  // 0600
  if (fd < 0) {
    *why = "cannot create a file in " + dir + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  ::close(fd);
  if (done != bytes.size() || ::rename(tmp.c_str(), (dir + "/" + name).c_str()) != 0) {
    *why = "cannot write " + tmp + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace libsplit
