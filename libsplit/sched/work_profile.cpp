#include "work_profile.h"

#include <algorithm>
#include <cmath>

namespace libsplit::sched {

void WorkProfile::reset(uint64_t numgroups) {
  numgroups_ = numgroups;
  known_ = false;
  density_.assign(std::min(numgroups, kMaxBins), 0.0);
}

double WorkProfile::work_before(const std::vector<double>& prefix, uint64_t g) const {
  const uint64_t bins = density_.size();
  if (g >= numgroups_) return prefix[bins];
  // The bin holding g: the last whose first group is at most g.
  const uint64_t b = ((g + 1) * bins + numgroups_ - 1) / numgroups_ - 1;
  return prefix[b] + density_[b] * double(g - bin_first(b));
}

namespace {
std::vector<double> prefix_sums(const std::vector<double>& density, uint64_t numgroups) {
  const uint64_t bins = density.size();
  std::vector<double> prefix(bins + 1, 0.0);
  for (uint64_t b = 0; b < bins; ++b) {
    const uint64_t size = (b + 1) * numgroups / bins - b * numgroups / bins;
    prefix[b + 1] = prefix[b] + density[b] * double(size);
  }
  return prefix;
}
}  // namespace

double WorkProfile::work(uint64_t first, uint64_t count) const {
  if (!known_ || count == 0) return 0;
  const std::vector<double> prefix = prefix_sums(density_, numgroups_);
  return work_before(prefix, first + count) - work_before(prefix, first);
}

void WorkProfile::learn(uint64_t first, uint64_t count, double work) {
  if (count == 0 || first + count > numgroups_ || !(work > 0) || !std::isfinite(work)) return;
  if (!known_) {
    std::fill(density_.begin(), density_.end(), work / double(count));
    known_ = true;
    return;
  }
  const double current = this->work(first, count);
  if (!(current > 0)) return;
  const double factor = work / current;
  const uint64_t bins = density_.size(), end = first + count;
  for (uint64_t b = 0; b < bins; ++b) {
    const uint64_t lo = bin_first(b), hi = bin_first(b + 1);
    if (hi <= first) continue;
    if (lo >= end) break;
    const double covered = double(std::min(hi, end) - std::max(lo, first)) / double(hi - lo);
    density_[b] *= 1 + (factor - 1) * covered;
  }
}

std::vector<uint64_t> WorkProfile::balance(const std::vector<double>& seconds_per_work,
                                           const std::vector<double>& seconds_per_group) const {
  const size_t devices = seconds_per_work.size();
  std::vector<uint64_t> groups(devices, 0);
  const std::vector<double> prefix = prefix_sums(density_, numgroups_);
  auto predicted = [&](size_t d, uint64_t first, uint64_t count) {
    return seconds_per_work[d] * (work_before(prefix, first + count) - work_before(prefix, first)) +
           seconds_per_group[d] * double(count);
  };
  // Devices in order each take the most groups they finish within t; t is
  // feasible when they cover the launch.
  auto fill = [&](double t) {
    uint64_t offset = 0;
    for (size_t d = 0; d < devices; ++d) {
      groups[d] = 0;
      if (!(seconds_per_work[d] > 0) || offset >= numgroups_) continue;
      uint64_t low = 0, high = numgroups_ - offset;
      while (low < high) {
        const uint64_t mid = low + (high - low + 1) / 2;
        if (predicted(d, offset, mid) <= t)
          low = mid;
        else
          high = mid - 1;
      }
      groups[d] = low;
      offset += low;
    }
    return offset;
  };
  double low = 0, high = 0;
  size_t last = devices;
  for (size_t d = 0; d < devices; ++d)
    if (seconds_per_work[d] > 0) high = std::max(high, predicted(d, 0, numgroups_)), last = d;
  if (last == devices || numgroups_ == 0) return groups;
  for (int i = 0; i < 50 && high - low > 1e-9 * high; ++i) {
    const double mid = 0.5 * (low + high);
    (fill(mid) >= numgroups_ ? high : low) = mid;
  }
  const uint64_t covered = fill(high);
  groups[last] += numgroups_ - std::min(covered, numgroups_);
  return groups;
}

}  // namespace libsplit::sched
