#include "work_profile.h"

#include <algorithm>
#include <cmath>

#include "monotone_search.h"

namespace libsplit::sched {

void WorkProfile::reset(uint64_t numgroups) {
  numgroups_ = numgroups;
  known_ = false;
  const uint64_t bins = std::min(numgroups, kMaxBins);
  density_.assign(bins, 0.0);
  start_.resize(bins + 1);
  for (uint64_t b = 0; b <= bins; ++b) start_[b] = b * numgroups / std::max<uint64_t>(bins, 1);
  prefix_.clear();
}

const std::vector<double>& WorkProfile::prefix() const {
  if (prefix_.empty()) {
    const uint64_t bins = density_.size();
    prefix_.assign(bins + 1, 0.0);
    for (uint64_t b = 0; b < bins; ++b)
      prefix_[b + 1] = prefix_[b] + density_[b] * double(start_[b + 1] - start_[b]);
  }
  return prefix_;
}

double WorkProfile::work_before(uint64_t g) const {
  const std::vector<double>& p = prefix();
  if (g >= numgroups_) return p.back();
  const uint64_t b = bin_of(g);
  return p[b] + density_[b] * double(g - start_[b]);
}

double WorkProfile::work(uint64_t first, uint64_t count) const {
  if (!known_ || count == 0) return 0;
  return work_before(first + count) - work_before(first);
}

void WorkProfile::learn(uint64_t first, uint64_t count, double work) {
  if (count == 0 || first + count > numgroups_ || !(work > 0) || !std::isfinite(work)) return;
  prefix_.clear();
  if (!known_) {
    std::fill(density_.begin(), density_.end(), work / double(count));
    known_ = true;
    return;
  }
  // The bins the groups cover: whole ones between two it may cover in part.
  const uint64_t end = first + count, lo_bin = bin_of(first), hi_bin = bin_of(end - 1);
  auto covered = [&](uint64_t b) {
    const uint64_t lo = start_[b], hi = start_[b + 1];
    return double(std::min(hi, end) - std::max(lo, first)) / double(hi - lo);
  };
  double current = 0;
  for (uint64_t b = lo_bin; b <= hi_bin; ++b) {
    const double part = b == lo_bin || b == hi_bin ? covered(b) : 1.0;
    current += density_[b] * part * double(start_[b + 1] - start_[b]);
  }
  if (!(current > 0)) return;
  const double factor = work / current;
  for (uint64_t b = lo_bin; b <= hi_bin; ++b)
    density_[b] *= b == lo_bin || b == hi_bin ? 1 + (factor - 1) * covered(b) : factor;
}

std::vector<uint64_t> WorkProfile::balance(const std::vector<double>& seconds_per_work,
                                           const std::vector<double>& seconds_per_group) const {
  const size_t devices = seconds_per_work.size();
  std::vector<uint64_t> groups(devices, 0);
  auto predicted = [&](size_t d, uint64_t first, uint64_t count) {
    return seconds_per_work[d] * (work_before(first + count) - work_before(first)) +
           seconds_per_group[d] * double(count);
  };
  // Devices in order each take the most groups they finish within t; t is
  // feasible when they cover the launch.
  auto fill = [&](double t) {
    uint64_t offset = 0;
    for (size_t d = 0; d < devices; ++d) {
      groups[d] = 0;
      if (!(seconds_per_work[d] > 0) || offset >= numgroups_) continue;
      groups[d] = largest_within([&](uint64_t g) { return predicted(d, offset, g); }, numgroups_ - offset, t);
      offset += groups[d];
    }
    return offset;
  };
  double low = 0, high = 0;
  size_t last = devices;
  for (size_t d = 0; d < devices; ++d)
    if (seconds_per_work[d] > 0) high = std::max(high, predicted(d, 0, numgroups_)), last = d;
  if (last == devices || numgroups_ == 0) return groups;
  // To 1e-6 of the makespan: finer moves no boundary by a group.
  for (int i = 0; i < 40 && high - low > 1e-6 * high; ++i) {
    const double mid = 0.5 * (low + high);
    (fill(mid) >= numgroups_ ? high : low) = mid;
  }
  const uint64_t covered = fill(high);
  groups[last] += numgroups_ - std::min(covered, numgroups_);
  return groups;
}

}  // namespace libsplit::sched
