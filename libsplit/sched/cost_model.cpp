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

DeviceCostModel::Line DeviceCostModel::line() const {
  if (samples_.empty()) return {};
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
    return {overhead, (latest.seconds - overhead) / double(latest.groups)};
  }
  return {0.0, latest_per_group()};
}

double DeviceCostModel::predict(uint64_t groups) const { return line().at(groups); }

uint64_t DeviceCostModel::Line::groups_within(double seconds, uint64_t limit) const {
  // Solve overhead + slope * g <= seconds, then step to the exact answer of
  // the same floating-point evaluation as at() (the division rounds).
  uint64_t g = limit;
  if (slope > 0) {
    const double solved = std::floor((seconds - overhead) / slope);
    g = !(solved > 0) ? 0 : solved >= double(limit) ? limit : uint64_t(solved);  // NaN: 0
  } else if (at(limit) > seconds) {
    g = 0;  // flat line above the budget (slope 0: every size costs the same)
  }
  while (g < limit && at(g + 1) <= seconds) ++g;
  while (g > 0 && at(g) > seconds) --g;
  return g;
}

}  // namespace libsplit::sched

namespace libsplit::sched {

namespace {
constexpr size_t kFitSamples = 12;
constexpr double kRecency = 0.8;      // weight of a sample one step older
constexpr double kNoiseSmoothing = 0.2;
constexpr double kSameSize = 1.15;    // "close" sizes for the noise estimate
constexpr double kWinsorize = 3.0;
constexpr double kFarJump = 2.0;      // far from known sizes: this much slower is a jump    // noise updates clamped to this many sigmas
}  // namespace

void LinearCostFit::clear() {
  samples_.clear();
  overhead_ = slope_ = 0;
  jumped_ = false;
  has_slope_ = false;
}

void LinearCostFit::add(uint64_t groups, double seconds) {
  jumped_ = false;
  if (groups == 0 || !(seconds > 0) || !std::isfinite(seconds)) return;
  bool near_known = false;
  for (const Sample& s : samples_)
    if (double(groups) <= kSameSize * double(s.groups) && double(s.groups) <= kSameSize * double(groups))
      near_known = true;
  // Far from the sizes seen, a linear model with an overhead can be off by
  // some factor, but only towards too slow a prediction when it grows from
  // small sizes; a measurement much slower than predicted is a jump too.
  const bool much_slower = !near_known && !samples_.empty() &&
                           double(groups) <= 4.0 * double(largest_groups()) &&
                           seconds > kFarJump * predict(groups);
  if (much_slower) {
    const double residual = (seconds - predict(groups)) / predict(groups);
    samples_.clear();
    jumped_ = true;
    volatility_ = std::max(volatility_, std::min(residual * residual, 1.0));
    recent_jumps_ = std::min(recent_jumps_ + 1, 8u);
    stable_since_jump_ = 0;
  } else if (near_known) {
    const double expected = predict(groups);
    const double residual = (seconds - expected) / expected;
    const double jump = std::max(kJumpSigmas * noise_sigma(), kMinJump);
    if (std::fabs(residual) > jump) {
      // A step (the device's load changed) or moving work: the old samples
      // describe another device now, and the jump is noise until stable
      // samples say otherwise.
      samples_.clear();
      jumped_ = true;
      volatility_ = std::max(volatility_, std::min(residual * residual, 1.0));
      recent_jumps_ = std::min(recent_jumps_ + 1, 8u);
      stable_since_jump_ = 0;
    } else {
      if (volatility_ > 0 &&
          ++stable_since_jump_ >= (kSettleSamples << (recent_jumps_ - 1))) {
        volatility_ = 0;  // a step: settled
        recent_jumps_ = recent_jumps_ > 1 ? recent_jumps_ - 1 : 0;
      }
      // Clamped: a residual the linear model cannot explain (a cliff just
      // below the jump threshold) must not inflate the noise without bound.
      const double limit = kWinsorize * noise_sigma();
      const double r = std::clamp(residual, -limit, limit);
      relative_variance_ = noise_samples_ == 0
                               ? r * r
                               : (1 - kNoiseSmoothing) * relative_variance_ + kNoiseSmoothing * r * r;
      ++noise_samples_;
    }
  }
  samples_.push_front({groups, seconds});
  if (samples_.size() > kFitSamples) samples_.pop_back();
  refit();
}

double LinearCostFit::relative_sigma() const {
  double measured = std::sqrt(std::max(relative_variance_, volatility_));
  if (noise_samples_ < kNoiseSamples) return std::max(kPriorSigma, measured);
  return std::max(kMinSigma, measured);
}

double LinearCostFit::noise_sigma() const {
  double measured = std::sqrt(relative_variance_);
  if (noise_samples_ < kNoiseSamples) return std::max(kPriorSigma, measured);
  return std::max(kMinSigma, measured);
}

double LinearCostFit::upper_factor(double sigmas) const {
  const double sigma = relative_sigma();
  return 1 + sigma * (0.5 + sigmas / std::sqrt(double(std::max(1u, noise_samples_))));
}

uint64_t LinearCostFit::largest_groups() const {
  uint64_t largest = 0;
  for (const Sample& s : samples_) largest = std::max(largest, s.groups);
  return largest;
}

void LinearCostFit::refit() {
  // Minimise sum w_i ((a + b g_i - s_i) / s_i)^2, a >= 0, b > 0.
  double sw = 0, sg = 0, sgg = 0, ss = 0, sgs = 0;
  double weight = 1, g_min = INFINITY, g_max = 0;
  for (const Sample& s : samples_) {
    const double w = weight / (s.seconds * s.seconds), g = double(s.groups);
    sw += w;
    sg += w * g;
    sgg += w * g * g;
    ss += w * s.seconds;
    sgs += w * g * s.seconds;
    g_min = std::min(g_min, g);
    g_max = std::max(g_max, g);
    weight *= kRecency;
  }
  const double det = sw * sgg - sg * sg;
  has_slope_ = g_max > (1 + kMinRelativeSpread) * g_min && det > 0;
  if (has_slope_) {
    slope_ = (sw * sgs - sg * ss) / det;
    overhead_ = (ss - slope_ * sg) / sw;
    if (!(slope_ > 0)) {
      slope_ = 0;  // does not grow with the groups (e.g. a fixed staging cost)
      overhead_ = ss / sw;
    } else if (overhead_ < 0) {
      overhead_ = 0;
      slope_ = sgs / sgg;  // through the origin
    }
  } else {
    overhead_ = 0;  // one size: proportional (pessimistic above it)
    slope_ = sgs / sgg;
  }
}

double LinearCostFit::predict(uint64_t groups) const {
  if (groups == 0 || samples_.empty()) return 0;
  return overhead_ + slope_ * double(groups);
}

}  // namespace libsplit::sched
