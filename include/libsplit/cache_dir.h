// Where libsplit keeps what it caches across runs (libsplit-cc's entries,
// binary origins, device binaries, the scheduler's warm start), and how a
// file gets there: one rule for the compiler and the shim.
#pragma once

#include <string>

namespace libsplit {

// `configured` when set, else $LIBSPLIT_CACHE_DIR, else
// $XDG_CACHE_HOME/libsplit, else ~/.cache/libsplit, else
// /tmp/libsplit-cache-<uid>.
std::string cache_dir(const std::string& configured = "");

// mkdir -p: creates the missing directories of dir with `mode`; false (errno
// set) when one cannot be made.
bool make_directories(const std::string& dir, unsigned mode);

// Writes dir/name privately and atomically (directories 0700, file 0600,
// temporary file renamed into place: a reader sees the old file or the new
// one, never a part); false with the reason in *why.
bool write_private_file(const std::string& dir, const std::string& name, const std::string& bytes,
                        std::string* why);

}  // namespace libsplit
