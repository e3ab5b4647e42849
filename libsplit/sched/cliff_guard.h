// The overshoot guard over a static split's solver (paper Fig. 1b: where a
// device's time per group jumps with its share, f is discontinuous, has no
// balanced point, and the solvers jump across the cliff forever). When a
// split launch is clearly slower than the previous one, the bottleneck
// device changed (and, by policy, its share clearly grew), the guard
// bisects on the segment between the two splits, guided by which device is
// the bottleneck. A best split still unbalanced at the end is a cliff: it is
// held while the launches look the same there, and handed back to the
// solver when they change (a load step) or after a while; a balanced one
// goes back to the solver at once.
//
// Optionally the suspicion is verified first: the split goes back to the
// previous one, and kernel times per group there as before mean a cliff
// (bisect), other ones a load step that came with the move (the solver
// follows it). Used by SplitScheduler (adaptive ones) and NoRegretScheduler.
#pragma once

#include <cstdint>
#include <vector>

#include "solvers.h"

namespace libsplit::sched {

struct CliffGuardPolicy {
  // Go back to the previous split before bisecting (see above).
  bool verify_first = false;
  // The bottleneck's share must have grown by more than this fraction for
  // an overshoot; negative: any change of the bottleneck device will do.
  double min_share_growth = -1;
  // Bisection: at most this many steps; with `stop_below_one_group` also
  // stops once the segment left is narrower than one work-group.
  unsigned max_steps = 8;
  bool stop_below_one_group = false;
  // A best split more unbalanced than this is a cliff, held at most
  // `hold_max` launches.
  double cliff_imbalance = 0.15;
  unsigned hold_max = 24;
  // What releases a held split early: its makespan moving by more than
  // `hold_makespan_tolerance` (relative), or (per_device_hold) any device's
  // time per group moving beyond the launch's noise band.
  bool per_device_hold = false;
  double hold_makespan_tolerance = 0.05;
};

// One split launch as the guard sees it, the devices in the solver's order.
struct SplitLaunch {
  std::vector<double> x;         // the shares run
  std::vector<double> f;         // busy seconds per group
  std::vector<double> kernel_f;  // kernel seconds per group (verify_first)
  double makespan = 0;
  double imbalance = 0;     // (slowest - fastest) / slowest
  unsigned bottleneck = 0;  // index into x of the slowest device
  // Relative change beyond noise: a slower launch than this is an overshoot
  // (and, with per_device_hold or verify_first, a time per group moving
  // more is a load step).
  double band = 0.05;
  uint64_t numgroups = 0;  // stop_below_one_group
};

class CliffGuard {
 public:
  explicit CliffGuard(const CliffGuardPolicy& policy) : policy_(policy) {}

  // The shares to run next instead of the solver's `proposal` after launch
  // `l`. `solver` (may be null) is reset where the guard hands back to it
  // and, after a verified load step, asked again.
  std::vector<double> next(const SplitLaunch& l, std::vector<double> proposal, GranularitySolver* solver);

  // The split's devices changed: the previous split and any bisection or
  // hold under way no longer apply.
  void restart();

  bool verifying() const { return verifying_; }
  bool bisecting() const { return bisecting_; }
  bool holding() const { return holding_; }

 private:
  std::vector<double> at(double alpha) const;
  bool overshoot(const SplitLaunch& l) const;
  std::vector<double> start(const SplitLaunch& l);
  std::vector<double> hold(const SplitLaunch& l, std::vector<double> proposal, GranularitySolver* solver);
  std::vector<double> verify(const SplitLaunch& l, GranularitySolver* solver);
  std::vector<double> bisect(const SplitLaunch& l, GranularitySolver* solver);

  CliffGuardPolicy policy_;
  // The previous split launch.
  std::vector<double> previous_x_, previous_kernel_f_;
  double previous_makespan_ = 0, previous_imbalance_ = 0;
  unsigned previous_bottleneck_ = 0;
  // The segment from the split before the overshoot to the one after it,
  // the bisection's interval [lo, hi] of it and the best split seen.
  bool verifying_ = false, bisecting_ = false, holding_ = false;
  std::vector<double> from_, to_, best_x_, from_kernel_f_, held_f_;
  double best_makespan_ = 0, best_imbalance_ = 0, held_makespan_ = 0;
  double lo_ = 0, hi_ = 1, alpha_ = 0;
  unsigned steps_ = 0, held_ = 0;
};

}  // namespace libsplit::sched
