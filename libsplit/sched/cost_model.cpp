#include "cost_model.h"

#include <algorithm>
#include <cmath>

namespace libsplit::sched {

namespace {
constexpr size_t kKeptSamples = 8;
// Two samples closer than this (relative group count) are too noisy to fit.
constexpr double kMinRelativeSpread = 0.1;
}  // namespace

void DeviceCostModel::add(uint64_t groups, double seconds) {
  if (groups == 0 || !(seconds >= 0) || !std::isfinite(seconds)) return;
  samples_.push_front({groups, seconds});
  if (samples_.size() > kKeptSamples) samples_.pop_back();
}

double DeviceCostModel::latest_per_group() const {
  if (samples_.empty()) return 0;
  return samples_.front().seconds / double(samples_.front().groups);
}

double DeviceCostModel::predict(uint64_t groups) const {
  if (groups == 0 || samples_.empty()) return 0;
  const Sample& latest = samples_.front();
  for (size_t i = 1; i < samples_.size(); ++i) {
    const Sample& other = samples_[i];
    double spread = std::fabs(double(latest.groups) - double(other.groups)) /
                    double(std::max(latest.groups, other.groups));
    if (spread < kMinRelativeSpread) continue;
    double slope = (latest.seconds - other.seconds) /
                   (double(latest.groups) - double(other.groups));
    if (!(slope > 0)) break;
    double overhead = std::clamp(latest.seconds - slope * double(latest.groups), 0.0,
                                 latest.seconds);
    // Keep the latest point exact: the slope absorbs what the clamp removed.
    slope = (latest.seconds - overhead) / double(latest.groups);
    return overhead + slope * double(groups);
  }
  return latest_per_group() * double(groups);
}

}  // namespace libsplit::sched
