#include "Cache.h"

#include "libsplit/cache_dir.h"

#include "libsplit/summary.h"

#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace libsplit::cc {

namespace {

constexpr const char* kMagic = "libsplit-cc-cache 2";

bool readFile(const std::string& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out.clear();
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof(buf))) > 0) out.append(buf, size_t(n));
  ::close(fd);
  return n == 0;
}

std::string stampOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "- -";
  return std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

std::string fileStamps(const std::vector<std::string>& paths) {
  std::string out;
  for (const auto& p : paths)
    if (p.find('\n') == std::string::npos) out += stampOf(p) + " " + p + "\n";
  return out;
}

bool stampsStillValid(const std::string& stamps) {
  size_t pos = 0;
  while (pos < stamps.size()) {
    size_t eol = stamps.find('\n', pos);
    if (eol == std::string::npos) return false;
    std::string line = stamps.substr(pos, eol - pos);
    pos = eol + 1;
    size_t s1 = line.find(' ');
    size_t s2 = s1 == std::string::npos ? s1 : line.find(' ', s1 + 1);
    if (s2 == std::string::npos) return false;
    if (stampOf(line.substr(s2 + 1)) != line.substr(0, s2)) return false;
  }
  return true;
}

std::string Cache::defaultDir() { return cache_dir(); }

std::string Cache::pathFor(const std::string& key) const { return dir_ + "/" + key + ".entry"; }

std::optional<CacheEntry> Cache::load(const std::string& key) const {
  std::string text;
  if (!readFile(pathFor(key), text)) return std::nullopt;
  // Header: magic, key, the two lengths; then the two texts back to back.
  std::string header = std::string(kMagic) + "\n" + key + "\n";
  if (text.compare(0, header.size(), header) != 0) return std::nullopt;
  size_t eol = text.find('\n', header.size());
  if (eol == std::string::npos) return std::nullopt;
  char* end = nullptr;
  std::string lengths = text.substr(header.size(), eol - header.size());
  unsigned long long n1 = std::strtoull(lengths.c_str(), &end, 10);
  if (*end != ' ') return std::nullopt;
  unsigned long long n2 = std::strtoull(end + 1, &end, 10);
  if (*end != ' ') return std::nullopt;
  unsigned long long n3 = std::strtoull(end + 1, &end, 10);
  if (*end != '\0') return std::nullopt;
  size_t body = eol + 1;
  if (text.size() - body != n1 + n2 + n3) return std::nullopt;
  CacheEntry e{text.substr(body, n1), text.substr(body + n1, n2), text.substr(body + n1 + n2, n3)};
  if (!parse_summary(e.summaryJson) || !stampsStillValid(e.dependencies)) return std::nullopt;
  return e;
}

bool Cache::store(const std::string& key, const CacheEntry& entry, std::string* error) const {
  std::string text = std::string(kMagic) + "\n" + key + "\n" +
                     std::to_string(entry.partitionReady.size()) + " " +
                     std::to_string(entry.summaryJson.size()) + " " +
                     std::to_string(entry.dependencies.size()) + "\n" + entry.partitionReady +
                     entry.summaryJson + entry.dependencies;
  std::string why;
  if (write_private_file(dir_, key + ".entry", text, &why)) return true;
  if (error) *error = why;
  return false;
}

}  // namespace libsplit::cc
