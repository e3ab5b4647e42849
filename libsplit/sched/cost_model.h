// What one device's sub-kernels cost, learned from the launches of one
// LaunchKey: the latest per-group time and a linear fit overhead + c*groups
// from two recent launches with clearly different group counts.
#pragma once

#include <cstddef>
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
  // predict(g) = overhead + slope * g for g > 0: which samples fix the line
  // does not depend on g, so a caller asking many sizes takes it once.
  struct Line {
    double overhead = 0, slope = 0;
    double at(uint64_t groups) const { return groups ? overhead + slope * double(groups) : 0.0; }
    // The most groups, up to `limit`, predicted to take at most `seconds`:
    // what a binary search over at() finds, in O(1) (the split scheduler
    // asks ~1000 times per launch report).
    uint64_t groups_within(double seconds, uint64_t limit) const;
  };
  Line line() const;  // unknown: predicts 0 everywhere

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
  // The same without the jumps: what one measurement scatters by.
  double noise_sigma() const;
  // Relative uncertainty of predict() near the measured sizes: the expected
  // excess of a max over noisy devices (half a sigma) plus `sigmas`
  // standard errors of the mean.
  double upper_factor(double sigmas) const;
  // Largest group count among the samples kept: predictions beyond a few
  // times this are extrapolations.
  uint64_t largest_groups() const;
  // Whether the latest add() was a jump (older samples dropped).
  bool jumped() const { return jumped_; }
  // Whether the fit has two clearly different sizes (else it is
  // proportional to one sample: pessimistic above it when there is an
  // overhead).
  bool has_slope() const { return has_slope_; }
  // Samples the fit rests on (since the last jump).
  size_t samples() const { return samples_.size(); }
  // Samples the noise estimate rests on.
  unsigned noise_samples() const { return noise_samples_; }
  void clear();

  static constexpr double kPriorSigma = 0.03, kMinSigma = 0.005;
  static constexpr unsigned kNoiseSamples = 3;  // before the prior is dropped
  static constexpr double kJumpSigmas = 4, kMinJump = 0.15;
  static constexpr unsigned kSettleSamples = 3;

 private:
  void refit();
  struct Sample {
    uint64_t groups;
    double seconds;
  };
  std::deque<Sample> samples_;  // newest first
  double overhead_ = 0, slope_ = 0;
  double relative_variance_ = 0;
  // Jumps: a load step is one jump followed by stable samples; work that
  // moves with the data (a slice's cost depends on where it falls) jumps
  // again and again. After a jump the jump itself counts as noise until
  // kSettleSamples << (recent jumps - 1) stable samples confirm a step.
  double volatility_ = 0;
  unsigned recent_jumps_ = 0, stable_since_jump_ = 0;
  unsigned noise_samples_ = 0;
  bool jumped_ = false;
  bool has_slope_ = false;
};

}  // namespace libsplit::sched
