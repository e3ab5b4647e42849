#include "libsplit/cache_dir.h"

#include <unistd.h>

#include <cstdlib>

namespace libsplit {

std::string cache_dir(const std::string& configured) {
  if (!configured.empty()) return configured;
  if (const char* d = std::getenv("LIBSPLIT_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/libsplit";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/libsplit";
  return "/tmp/libsplit-cache-" + std::to_string(::getuid());
}

}  // namespace libsplit
