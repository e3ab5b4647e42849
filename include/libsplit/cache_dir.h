// Where libsplit keeps what it caches across runs (libsplit-cc's entries,
// binary origins, device binaries): one rule for the compiler and the shim.
#pragma once

#include <string>

namespace libsplit {

// `configured` when set, else $LIBSPLIT_CACHE_DIR, else
// $XDG_CACHE_HOME/libsplit, else ~/.cache/libsplit, else
// /tmp/libsplit-cache-<uid>.
std::string cache_dir(const std::string& configured = "");

}  // namespace libsplit
