#include "partition_change.h"

#include <algorithm>
#include <cmath>

namespace libsplit {

namespace {
constexpr double kPaybackLaunches = 4;
constexpr double kMinGain = 0.05;
constexpr double kClearGain = 0.25;
}  // namespace

PartitionChangeVerdict judge_partition_change(const PartitionChangeFacts& f) {
  if (f.move_seconds <= 0) return {true, true};
  const double horizon = std::max(kPaybackLaunches, f.launches);
  PartitionChangeVerdict v;
  v.better = f.gain * horizon > f.move_seconds && f.gain > std::max(kMinGain, 2 * f.noise) * f.kept_seconds;
  const bool clear = f.gain > f.move_seconds && f.gain > kClearGain * f.kept_seconds;
  v.change = v.better && (f.won_before || clear);
  return v;
}

double updated_noise(double noise, double previous, double rate) {
  if (!(previous > 0)) return noise;
  constexpr double kMaxChange = 0.25;
  return 0.75 * noise + 0.25 * std::min(kMaxChange, std::abs(rate - previous) / previous);
}

}  // namespace libsplit
