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

namespace libsplit::sched {

// Cost of one device for one LaunchKey as overhead + slope * groups, fitted
// by recency-weighted least squares on relative errors (sizes span orders
// of magnitude: probes of 1 group next to whole launches), with an estimate
// of the measurement noise. Noise is learned only from samples whose size is
// close to one already seen (interpolation): the error of an extrapolation is
// model error, not noise. A sample far outside the noise band at a known size
// is a change (a load step): the older samples are dropped.
class LinearCostFit {
 public:
  void add(uint64_t groups, double seconds);
  bool known() const { return !samples_.empty(); }
  // Predicted seconds (0 for 0 groups or unknown).
  double predict(uint64_t groups) const;
  // Relative standard deviation of a measurement (a prior until enough
  // repeated sizes were seen).
  double relative_sigma() const;
  // Largest group count among the samples kept: predictions beyond a few
  // times this are extrapolations.
  uint64_t largest_groups() const;
  // Whether the latest add() was a jump (older samples dropped).
  bool jumped() const { return jumped_; }
  void clear();

  static constexpr double kPriorSigma = 0.05, kMinSigma = 0.005;
  static constexpr unsigned kNoiseSamples = 3;  // before the prior is dropped
  static constexpr double kJumpSigmas = 4, kMinJump = 0.15;

 private:
  void refit();
  struct Sample {
    uint64_t groups;
    double seconds;
  };
  std::deque<Sample> samples_;  // newest first
  double overhead_ = 0, slope_ = 0;
  double relative_variance_ = 0;
  unsigned noise_samples_ = 0;
  bool jumped_ = false;
};

}  // namespace libsplit::sched
