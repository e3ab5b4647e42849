// The cliff guard (cliff_guard.h) on its own: a fixed-point solver on the
// simulator's `cliff` model (the GPU 2x slower per group above 85 % of the
// groups) jumps across the cliff for ever; behind the guard it settles next
// to it. Plus each step of the guard's state machine on hand-made launches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cliff_guard.h"
#include "device_model.h"
#include "rounding.h"
#include "solvers.h"

namespace libsplit::sched {
namespace {

// One launch of `model` at `shares` (noise-free), as the guard sees it.
SplitLaunch run_on_model(const sim::Model& model, const std::vector<double>& shares, unsigned launch) {
  const sim::WorkProfile work(model, launch);
  std::vector<uint64_t> groups = round_to_groups(shares, model.numgroups);
  SplitLaunch l;
  uint64_t first = 0;
  double fastest = INFINITY;
  for (unsigned d = 0; d < groups.size(); ++d) {
    const double seconds = sim::chunk_cost(model, work, d, first, groups[d], launch, true).total();
    first += groups[d];
    l.x.push_back(double(groups[d]) / double(model.numgroups));
    l.f.push_back(groups[d] ? seconds / double(groups[d]) : 0);
    l.kernel_f.push_back(l.f.back());
    if (seconds > l.makespan) l.makespan = seconds, l.bottleneck = d;
    fastest = std::min(fastest, seconds);
  }
  l.imbalance = l.makespan > 0 ? (l.makespan - fastest) / l.makespan : 0;
  l.numgroups = model.numgroups;
  return l;
}

// Mean makespan over launches [from, to) of a fixed-point solver on the
// cliff model, behind `guard` when given.
double mean_makespan(CliffGuard* guard, unsigned from, unsigned to) {
  sim::Model model;
  std::string error;
  EXPECT_TRUE(sim::make_model("cliff", 0, &model, &error)) << error;
  FixedPointSolver solver;
  std::vector<double> shares = {0.5, 0.5};
  double total = 0;
  for (unsigned launch = 0; launch < to; ++launch) {
    SplitLaunch l = run_on_model(model, shares, launch);
    if (launch >= from) total += l.makespan;
    std::vector<double> proposal = normalized(solver.next(l.x, l.f));
    shares = guard ? guard->next(l, std::move(proposal), &solver) : proposal;
  }
  return total / double(to - from);
}

CliffGuardPolicy immediate_bisection() {
  CliffGuardPolicy policy;
  policy.max_steps = 8;
  policy.stop_below_one_group = true;
  policy.hold_max = 24;
  return policy;
}

TEST(CliffGuard, SettlesNextToACliffWhereTheSolverAloneJumpsAcrossIt) {
  const double alone = mean_makespan(nullptr, 10, 40);
  CliffGuard guard(immediate_bisection());
  const double guarded = mean_makespan(&guard, 10, 40);
  EXPECT_LT(guarded, 0.95 * alone) << "alone " << alone << ", guarded " << guarded;
}

TEST(CliffGuard, VerifyingFirstSettlesToo) {
  CliffGuardPolicy policy;
  policy.verify_first = true;
  policy.min_share_growth = 0.05;
  policy.max_steps = 6;
  policy.hold_max = 64;
  policy.per_device_hold = true;
  const double alone = mean_makespan(nullptr, 10, 40);
  CliffGuard guard(policy);
  const double guarded = mean_makespan(&guard, 10, 40);
  EXPECT_LT(guarded, 0.95 * alone) << "alone " << alone << ", guarded " << guarded;
}

// A launch at shares x whose bottleneck is `bottleneck`, with `makespan`.
SplitLaunch launch_at(std::vector<double> x, double makespan, unsigned bottleneck, double imbalance = 0.5) {
  SplitLaunch l;
  l.x = std::move(x);
  l.f = std::vector<double>(l.x.size(), 1.0);
  l.kernel_f = l.f;
  l.makespan = makespan;
  l.bottleneck = bottleneck;
  l.imbalance = imbalance;
  l.band = 0.05;
  l.numgroups = 1000;
  return l;
}

TEST(CliffGuard, PassesTheProposalThroughWhileLaunchesGetFaster) {
  CliffGuard guard(immediate_bisection());
  EXPECT_EQ(guard.next(launch_at({0.5, 0.5}, 1.0, 0), {0.4, 0.6}, nullptr), (std::vector<double>{0.4, 0.6}));
  EXPECT_EQ(guard.next(launch_at({0.4, 0.6}, 0.9, 1), {0.3, 0.7}, nullptr), (std::vector<double>{0.3, 0.7}));
  EXPECT_FALSE(guard.bisecting());
}

TEST(CliffGuard, BisectsAtOnceAfterAnOvershoot) {
  CliffGuard guard(immediate_bisection());
  guard.next(launch_at({0.6, 0.4}, 1.0, 0), {0.2, 0.8}, nullptr);
  // Slower beyond the band, another bottleneck: the midpoint of the two.
  std::vector<double> next = guard.next(launch_at({0.2, 0.8}, 1.5, 1), {0.1, 0.9}, nullptr);
  EXPECT_TRUE(guard.bisecting());
  EXPECT_NEAR(next[0], 0.4, 1e-12);
  EXPECT_NEAR(next[1], 0.6, 1e-12);
}

TEST(CliffGuard, ASameBottleneckOrASmallSlowdownIsNoOvershoot) {
  CliffGuard guard(immediate_bisection());
  guard.next(launch_at({0.6, 0.4}, 1.0, 0), {0.2, 0.8}, nullptr);
  guard.next(launch_at({0.2, 0.8}, 1.5, 0), {0.3, 0.7}, nullptr);
  EXPECT_FALSE(guard.bisecting());
  guard.next(launch_at({0.3, 0.7}, 1.52, 1), {0.3, 0.7}, nullptr);
  EXPECT_FALSE(guard.bisecting());
}

TEST(CliffGuard, VerifiesAtTheOldSplitAndFollowsALoadStep) {
  CliffGuardPolicy policy;
  policy.verify_first = true;
  policy.min_share_growth = 0.05;
  CliffGuard guard(policy);
  guard.next(launch_at({0.6, 0.4}, 1.0, 0), {0.2, 0.8}, nullptr);
  std::vector<double> back = guard.next(launch_at({0.2, 0.8}, 1.5, 1), {0.1, 0.9}, nullptr);
  EXPECT_TRUE(guard.verifying());
  EXPECT_EQ(back, (std::vector<double>{0.6, 0.4}));
  // At the old split device 1 now takes twice as long per group: a load
  // step, not a cliff. The solver's step from here, no bisection.
  SplitLaunch there = launch_at({0.6, 0.4}, 1.6, 1);
  there.f = there.kernel_f = {1.0, 2.0};
  std::vector<double> next = guard.next(there, {0.5, 0.5}, nullptr);
  EXPECT_FALSE(guard.bisecting());
  EXPECT_NEAR(next[0], 2.0 / 3.0, 1e-12);  // fixed_point_map({1, 2})
}

TEST(CliffGuard, HoldsAnUnbalancedBestSplitUntilTheTimesMove) {
  CliffGuardPolicy policy = immediate_bisection();
  policy.max_steps = 1;
  CliffGuard guard(policy);
  guard.next(launch_at({0.6, 0.4}, 1.0, 0, 0.5), {0.2, 0.8}, nullptr);
  guard.next(launch_at({0.2, 0.8}, 1.5, 1, 0.5), {0.1, 0.9}, nullptr);
  // One step: the best split (the first, imbalance 0.5 > 0.15) is held.
  std::vector<double> held = guard.next(launch_at({0.4, 0.6}, 1.2, 1, 0.5), {0.3, 0.7}, nullptr);
  EXPECT_TRUE(guard.holding());
  EXPECT_EQ(held, (std::vector<double>{0.6, 0.4}));
  EXPECT_EQ(guard.next(launch_at({0.6, 0.4}, 1.0, 0, 0.5), {0.3, 0.7}, nullptr), held);
  // The makespan moved by more than 5 %: back to the solver.
  EXPECT_EQ(guard.next(launch_at({0.6, 0.4}, 1.2, 0, 0.5), {0.3, 0.7}, nullptr),
            (std::vector<double>{0.3, 0.7}));
  EXPECT_FALSE(guard.holding());
}

TEST(CliffGuard, RestartForgetsThePreviousSplit) {
  CliffGuard guard(immediate_bisection());
  guard.next(launch_at({0.6, 0.4}, 1.0, 0), {0.2, 0.8}, nullptr);
  guard.restart();
  EXPECT_EQ(guard.next(launch_at({0.2, 0.8}, 1.5, 1), {0.1, 0.9}, nullptr), (std::vector<double>{0.1, 0.9}));
  EXPECT_FALSE(guard.bisecting());
}

}  // namespace
}  // namespace libsplit::sched
