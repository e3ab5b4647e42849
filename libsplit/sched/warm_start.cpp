#include "warm_start.h"

#include "libsplit/cache_dir.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace libsplit::sched {

namespace {

uint64_t fnv1a(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string hex(uint64_t value) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

constexpr const char* kMagic = "libsplit-sched-warmstart 1";
constexpr const char* kAppMagic = "libsplit-sched-app 1";

}  // namespace

std::string describe(const LaunchKey& key) {
  std::ostringstream out;
  out << key.kernel << " dims=" << key.dims << " global=" << key.global[0] << ','
      << key.global[1] << ',' << key.global[2] << " local=" << key.local[0] << ','
      << key.local[1] << ',' << key.local[2] << " split=" << key.split_dim;
  return out.str();
}

WarmStartStore::WarmStartStore(std::string directory, const std::vector<DeviceInfo>& devices)
    : directory_(std::move(directory)), device_count_(devices.size()) {
  // A PoCL-Remote device carries its server device's name and figures, so
  // `remote` tells the layouts apart: 4 GPUs through 2 servers shared the
  // verdicts of the same 4 GPUs used locally, and a split that lost over the
  // network blocked the local one (histogram on 4 H100: 1.04x against 2.7x).
  std::ostringstream out;
  for (const DeviceInfo& device : devices)
    out << device.name << '|' << device.is_gpu << '|' << device.compute_units << '|'
        << device.clock_mhz << (device.remote ? "|remote" : "") << ';';
  device_set_ = hex(fnv1a(out.str()));
}

std::string WarmStartStore::directory_from_environment() {
  if (const char* enabled = std::getenv("LIBSPLIT_WARMSTART");
      enabled && std::string_view(enabled) == "0")
    return "";
  return cache_dir() + "/sched";  // the one rule of libsplit's caches
}

std::string WarmStartStore::name_for(const LaunchKey& key) const {
  return hex(fnv1a(describe(key) + "#" + device_set_)) + ".txt";
}

std::string WarmStartStore::path_for(const LaunchKey& key) const {
  return directory_ + "/" + name_for(key);
}

std::optional<StoredDecision> WarmStartStore::load(const LaunchKey& key) const {
  if (directory_.empty()) return std::nullopt;
  std::ifstream in(path_for(key));
  if (!in) return std::nullopt;
  std::string magic, key_line, devices_line, whole_line, shares_line;
  if (!std::getline(in, magic) || magic != kMagic) return std::nullopt;
  if (!std::getline(in, key_line) || key_line != "key " + describe(key)) return std::nullopt;
  if (!std::getline(in, devices_line) || devices_line != "devices " + device_set_)
    return std::nullopt;
  if (!std::getline(in, whole_line) || !std::getline(in, shares_line)) return std::nullopt;

  StoredDecision decision;
  std::istringstream whole(whole_line);
  std::string word;
  long device = -1;
  if (!(whole >> word >> device) || word != "whole" || device >= long(device_count_))
    return std::nullopt;
  if (device >= 0) decision.whole_device = unsigned(device);

  std::istringstream shares(shares_line);
  if (!(shares >> word) || word != "shares") return std::nullopt;
  double sum = 0, value;
  while (shares >> value) {
    if (!std::isfinite(value) || value < 0 || value > 1) return std::nullopt;
    decision.shares.push_back(value);
    sum += value;
  }
  if (decision.shares.size() != device_count_ || std::fabs(sum - 1.0) > 1e-6)
    return std::nullopt;
  std::string lost_line;
  if (std::getline(in, lost_line)) decision.split_lost = lost_line == "split_lost 1";
  return decision;
}

bool WarmStartStore::save(const LaunchKey& key, const StoredDecision& decision) const {
  if (directory_.empty() || decision.shares.size() != device_count_) return false;
  std::ostringstream out;
  out.precision(17);
  out << kMagic << "\nkey " << describe(key) << "\ndevices " << device_set_ << "\nwhole "
      << (decision.whole_device ? long(*decision.whole_device) : -1L) << "\nshares";
  for (double share : decision.shares) out << ' ' << share;
  out << "\nsplit_lost " << int(decision.split_lost) << '\n';
  std::string why;
  return write_private_file(directory_, name_for(key), out.str(), &why);
}

std::string WarmStartStore::app_name(const std::string& app) const {
  return "app-" + hex(fnv1a(app + "#" + device_set_)) + ".txt";
}

namespace {

// The verdict lines of an app file, in Opening's order (unknown: no file).
constexpr const char* kOpeningLines[] = {"", "opening paid", "opening lost", "opening untried"};
// The paid line's tail when fewer than every group paid.
constexpr const char* kPaidGroups = " for the first groups: ";
// The line after a lost verdict: "kept whole N of M runs".
constexpr const char* kKeptWhole = "kept whole ";

}  // namespace

WarmStartStore::Opening WarmStartStore::app_opening(const std::string& app, unsigned* groups,
                                                    Retry* retry) const {
  if (groups) *groups = kAllGroups;
  if (retry) *retry = {};
  if (directory_.empty() || app.empty()) return Opening::unknown;
  std::ifstream in(directory_ + "/" + app_name(app));
  std::string magic, devices_line, app_line, verdict;
  if (!(std::getline(in, magic) && magic == kAppMagic && std::getline(in, devices_line) &&
        devices_line == "devices " + device_set_ && std::getline(in, app_line) && app_line == "app " + app))
    return Opening::unknown;
  // Files of before the verdict line were written only when opening paid.
  if (!std::getline(in, verdict)) return Opening::paid;
  for (size_t i = 1; i < std::size(kOpeningLines); ++i) {
    if (verdict != kOpeningLines[i]) continue;
    std::string line;
    if (Opening(i) != Opening::paid && retry && std::getline(in, line)) {
      unsigned runs = 0, after = 0;
      if (line.rfind(kKeptWhole, 0) == 0 &&
          sscanf(line.c_str() + strlen(kKeptWhole), "%u of %u runs", &runs, &after) == 2) {
        retry->runs = runs, retry->after = after;
        std::getline(in, line);
      }
      retry->why = line;
    }
    return Opening(i);
  }
  const std::string paid_some = std::string(kOpeningLines[size_t(Opening::paid)]) + kPaidGroups;
  if (verdict.rfind(paid_some, 0) == 0) {
    char* end = nullptr;
    const unsigned long n = strtoul(verdict.c_str() + paid_some.size(), &end, 10);
    if (end && *end == 0 && n > 0 && n < kAllGroups) {
      if (groups) *groups = unsigned(n);
      return Opening::paid;
    }
  }
  return Opening::unknown;
}

bool WarmStartStore::remember_app(const std::string& app, Opening verdict, const std::string& why,
                                  unsigned groups, const Retry& retry) const {
  if (directory_.empty() || app.empty()) return false;
  const std::string name = app_name(app);
  if (verdict == Opening::unknown) return unlink((directory_ + "/" + name).c_str()) == 0 || errno == ENOENT;
  std::string error;
  return write_private_file(directory_, name,
                            std::string(kAppMagic) + "\ndevices " + device_set_ + "\napp " + app + "\n" +
                                kOpeningLines[size_t(verdict)] +
                                (verdict == Opening::paid && groups != kAllGroups
                                     ? kPaidGroups + std::to_string(groups)
                                     : "") +
                                "\n" +
                                (verdict != Opening::paid && retry.after > 0
                                     ? kKeptWhole + std::to_string(retry.runs) + " of " +
                                           std::to_string(retry.after) + " runs\n"
                                     : "") +
                                (why.empty() ? "" : why + "\n"),
                            &error);
}

}  // namespace libsplit::sched
