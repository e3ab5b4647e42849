// Where a launch's work lies along its work-groups, learned from the times
// of split launches, and the split that balances devices over it.
//
// The solvers (solvers.h) see one time per group per device: a slice light on
// average but with heavy groups at its edge looks fast, and takes too many of
// its neighbour's heavy groups at the next launch. Mandelbrot over 4 H100
// (its middle rows hold the set, ~8x the outer rows' work) oscillated between
// two mirror-image splits for good, 1.93x where ~3.8x is reachable; the
// simulated model bump-4gpu shows the same (+73 % over the optimum after
// launch 20). With the work's position known, a device's time on a new slice
// is predicted from the work of those very groups.
#pragma once

#include <cstdint>
#include <vector>

namespace libsplit::sched {

// Work per group, piecewise constant over at most kMaxBins bins of equal
// group counts, in seconds of a reference device (speed 1). Unknown until
// the first learn(), which sets it flat. It is learned and read at every
// split launch's report, on the app's thread: with 1024 bins a report cost
// 42-46 us (plan_cost, split scenario, against 3.5 us without the profile),
// with 256 bins and prefix sums kept between reports 3-4 us.
class WorkProfile {
 public:
  static constexpr uint64_t kMaxBins = 256;

  // A launch of `numgroups` groups; forgets what was learned.
  void reset(uint64_t numgroups);
  uint64_t numgroups() const { return numgroups_; }
  bool known() const { return known_; }
  // Work of groups [first, first + count): O(1) (prefix sums, rebuilt in
  // O(bins) after a learn()).
  double work(uint64_t first, uint64_t count) const;
  // Those groups took `work`: the profile is scaled over them to match,
  // keeping the shape learned inside (bins they cover in part, in part).
  // O(bins they cover): a report's slices cover the launch once.
  void learn(uint64_t first, uint64_t count, double work);

  // Groups per device, contiguous in device order, so that each device's
  // predicted seconds, seconds_per_work[d] * work + seconds_per_group[d] *
  // groups, are as equal as the groups allow. Devices with
  // seconds_per_work[d] <= 0 take none; the profile must be known.
  std::vector<uint64_t> balance(const std::vector<double>& seconds_per_work,
                                const std::vector<double>& seconds_per_group) const;

 private:
  // The bin holding group g: the last whose first group is at most g.
  uint64_t bin_of(uint64_t g) const { return ((g + 1) * density_.size() + numgroups_ - 1) / numgroups_ - 1; }
  // Work of groups [0, g).
  double work_before(uint64_t g) const;
  const std::vector<double>& prefix() const;

  uint64_t numgroups_ = 0;
  bool known_ = false;
  std::vector<double> density_;  // work per group in each bin
  std::vector<uint64_t> start_;  // each bin's first group, and numgroups_ (bins + 1)
  // Work before each bin (bins + 1 entries); empty: to rebuild.
  mutable std::vector<double> prefix_;
};

}  // namespace libsplit::sched
