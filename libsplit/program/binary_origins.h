// Where the program binaries libsplit hands out came from. Apps cache
// binaries (clGetProgramInfo CL_PROGRAM_BINARIES, later
// clCreateProgramWithBinary, often in another process); a program from a
// binary has no source, so libsplit-cc cannot make it partition-ready. Each
// binary handed out from a program built from source is recorded as
// SHA-256(binary) -> (source, build options) in the cache directory
// (`binaries/`, directory 0700, files 0600, written to a temporary file and
// renamed into place); a binary found there gets its source back.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace libsplit {

struct BinaryOrigin {
  std::string source;
  std::string options;
};

// The table's directory: LIBSPLIT_CACHE_DIR (the control), else
// $XDG_CACHE_HOME/libsplit, else ~/.cache/libsplit — libsplit-cc's cache.
std::string binary_origins_dir(const std::string& configured_cache_dir);

// Records one binary. False (reason in *why) when the entry cannot be written.
bool record_binary_origin(const std::string& dir, const unsigned char* binary, size_t size,
                          const BinaryOrigin& origin, std::string* why);

// The origin shared by all the binaries (one per device); nullopt with the
// reason in *why when one is unknown or they disagree.
std::optional<BinaryOrigin> find_binary_origin(const std::string& dir,
                                               const std::vector<std::vector<unsigned char>>& binaries,
                                               std::string* why);

// Hex SHA-256 of a byte string (FIPS 180-4).
std::string sha256_hex(const unsigned char* data, size_t size);

}  // namespace libsplit
