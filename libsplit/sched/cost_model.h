// What one device's sub-kernels cost, learned from the launches of one
// LaunchKey: the latest per-group time and a linear fit overhead + c*groups
// from two recent launches with clearly different group counts.
#pragma once

#include <cstdint>
#include <deque>

namespace libsplit::sched {

class DeviceCostModel {
 public:
  // seconds = kernel + transfer time of all the device's chunks of a launch.
  void add(uint64_t groups, double seconds);
  bool known() const { return !samples_.empty(); }
  // Seconds per group at the latest measurement (0 when unknown).
  double latest_per_group() const;
  // Predicted seconds for `groups` groups (0 for 0 groups or unknown).
  double predict(uint64_t groups) const;

 private:
  struct Sample {
    uint64_t groups;
    double seconds;
  };
  std::deque<Sample> samples_;  // most recent first
};

}  // namespace libsplit::sched
