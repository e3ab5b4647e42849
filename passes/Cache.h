// The on-disk cache of libsplit-cc results: one file per (source, options,
// tool) key, written atomically (temp file + rename) in a 0700 directory,
// files 0600. A file that does not read back exactly (truncated, wrong key,
// summary not parsing) or whose headers changed since is treated as absent
// and rewritten.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace libsplit::cc {

struct CacheEntry {
  std::string partitionReady;
  std::string summaryJson;
  // The files the program included (headers), each with its size and
  // modification time at compile time: an entry whose headers changed is
  // stale. One "size mtime path" line per file (see fileStamps).
  std::string dependencies;
};

// "size mtime path\n" for each path; a missing file gets "- - path".
std::string fileStamps(const std::vector<std::string>& paths);
// True when every file listed in stamps still has that size and mtime.
bool stampsStillValid(const std::string& stamps);

class Cache {
 public:
  explicit Cache(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }

  // $LIBSPLIT_CACHE_DIR, else $XDG_CACHE_HOME/libsplit, else ~/.cache/libsplit.
  static std::string defaultDir();

  std::string pathFor(const std::string& key) const;
  std::optional<CacheEntry> load(const std::string& key) const;
  // False (with *error) when the entry could not be written; the compile
  // result is still good then.
  bool store(const std::string& key, const CacheEntry& entry, std::string* error) const;

 private:
  std::string dir_;
};

}  // namespace libsplit::cc
