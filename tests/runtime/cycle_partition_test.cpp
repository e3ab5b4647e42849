// The joint partition of a cycle of kernels (cycle_partition.h): the linear
// program's optimum against closed forms (one kernel; 2 devices: the best of
// the kernels' balance points) and against brute force over every integer
// partition on 3 devices.
#include "cycle_partition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace libsplit;

namespace {

// The cycle's time for real-valued shares (per device, summing to 1).
double time_of_shares(const std::vector<CycleKernel>& ks, const std::vector<double>& s) {
  double t = 0;
  for (const CycleKernel& k : ks) {
    double worst = 0;
    for (size_t d = 0; d < s.size(); ++d) worst = std::max(worst, k.seconds_per_group[d] * s[d]);
    t += k.launches * worst;
  }
  return t;
}

// Kernel k alone balanced: shares proportional to its speeds.
std::vector<double> own_balance(const CycleKernel& k) {
  std::vector<double> s;
  for (double r : k.seconds_per_group) s.push_back(1 / r);
  const double sum = std::accumulate(s.begin(), s.end(), 0.0);
  for (double& v : s) v /= sum;
  return s;
}

std::vector<CycleKernel> random_cycle(std::mt19937& rng, size_t devices, size_t kernels) {
  std::uniform_real_distribution<double> rate(0.1, 10), weight(0.5, 3);
  std::vector<CycleKernel> ks(kernels);
  for (CycleKernel& k : ks) {
    for (size_t d = 0; d < devices; ++d) k.seconds_per_group.push_back(rate(rng) * 1e-6);
    k.launches = std::uniform_int_distribution<int>(0, 2)(rng) ? 1 : weight(rng);
  }
  return ks;
}

}  // namespace

TEST(CyclePartition, OneKernelIsItsOwnBalance) {
  std::vector<double> s = joint_shares({{{1e-6, 3e-6}}});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NEAR(s[0], 0.75, 1e-9);
  EXPECT_NEAR(s[1], 0.25, 1e-9);
  s = joint_shares({{{1e-3, 2e-3, 4e-3}, 5}});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_NEAR(s[0], 4.0 / 7, 1e-9);
  EXPECT_NEAR(s[1], 2.0 / 7, 1e-9);
  EXPECT_NEAR(s[2], 1.0 / 7, 1e-9);
  EXPECT_EQ(joint_partition({{{1e-6, 3e-6}}}, 128), (std::vector<uint64_t>{96, 32}));
}

// Two kernels preferring different devices, the second launched twice per
// cycle: the cycle runs at the second's balance point (T is piecewise
// linear, its slope changes sign there), not halfway.
TEST(CyclePartition, TwoDevicesGoToTheHeavierKernelsBalance) {
  const std::vector<CycleKernel> ks = {{{1, 2}, 1}, {{2, 1}, 2}};
  std::vector<double> s = joint_shares(ks);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NEAR(s[0], 1.0 / 3, 1e-9);
  EXPECT_NEAR(time_of_shares(ks, s), 8.0 / 3, 1e-9);
  EXPECT_EQ(joint_partition(ks, 300), (std::vector<uint64_t>{100, 200}));
}

// 2 devices: the optimum of the convex piecewise-linear T(x) (x = device 0's
// share) lies at a breakpoint, one kernel's balance point, or at an end.
TEST(CyclePartition, TwoDevicesMatchTheBestBreakpoint) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    const auto ks = random_cycle(rng, 2, 1 + trial % 5);
    double best = std::min(time_of_shares(ks, {0, 1}), time_of_shares(ks, {1, 0}));
    for (const CycleKernel& k : ks) best = std::min(best, time_of_shares(ks, own_balance(k)));
    const std::vector<double> s = joint_shares(ks);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_NEAR(s[0] + s[1], 1, 1e-12);
    EXPECT_NEAR(time_of_shares(ks, s), best, 1e-9 * best) << "trial " << trial;
  }
}

// 3 devices: brute force over every integer partition of 60 groups. The
// real-valued optimum bounds it from below; the integer answer is within one
// group per kernel of that bound (and, in practice, the exact minimum).
TEST(CyclePartition, ThreeDevicesMatchBruteForce) {
  std::mt19937 rng(11);
  const uint64_t G = 60;
  int exact = 0, trials = 300;
  for (int trial = 0; trial < trials; ++trial) {
    const auto ks = random_cycle(rng, 3, 1 + trial % 4);
    double brute = INFINITY;
    for (uint64_t a = 0; a <= G; ++a)
      for (uint64_t b = 0; a + b <= G; ++b) brute = std::min(brute, cycle_seconds(ks, {a, b, G - a - b}));
    const std::vector<double> s = joint_shares(ks);
    ASSERT_EQ(s.size(), 3u);
    const double bound = time_of_shares(ks, s) * double(G);
    EXPECT_LE(bound, brute * (1 + 1e-9)) << "trial " << trial;
    const std::vector<uint64_t> g = joint_partition(ks, G);
    ASSERT_EQ(g.size(), 3u);
    EXPECT_EQ(g[0] + g[1] + g[2], G);
    double slack = 0;
    for (const CycleKernel& k : ks)
      slack += k.launches * *std::max_element(k.seconds_per_group.begin(), k.seconds_per_group.end());
    const double t = cycle_seconds(ks, g);
    EXPECT_LE(t, bound + slack) << "trial " << trial;
    EXPECT_GE(t, brute * (1 - 1e-12));
    exact += t <= brute * (1 + 1e-12);
  }
  EXPECT_GE(exact, trials * 9 / 10);
}

// With 3 devices the cycle's optimum can be no kernel's own balance: the
// middle device fast for both kernels, each outer one fast for one kernel
// and 10x slower for the other.
TEST(CyclePartition, BeatsEveryKernelsOwnBalance) {
  const std::vector<CycleKernel> ks = {{{1, 1, 10}}, {{10, 1, 1}}};
  const std::vector<double> s = joint_shares(ks);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_NEAR(s[0], 1.0 / 12, 1e-9);
  EXPECT_NEAR(s[1], 10.0 / 12, 1e-9);
  EXPECT_NEAR(s[2], 1.0 / 12, 1e-9);
  const double joint = time_of_shares(ks, s);
  EXPECT_NEAR(joint, 20.0 / 12, 1e-9);
  for (const CycleKernel& k : ks) EXPECT_GT(time_of_shares(ks, own_balance(k)), 3 * joint);
  std::mt19937 rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    const auto rs = random_cycle(rng, 2 + trial % 4, 2 + trial % 3);
    const double t = time_of_shares(rs, joint_shares(rs));
    for (const CycleKernel& k : rs) EXPECT_LE(t, time_of_shares(rs, own_balance(k)) * (1 + 1e-9));
  }
}

TEST(CyclePartition, RefusesWhatItCannotSolve) {
  EXPECT_TRUE(joint_shares({}).empty());
  EXPECT_TRUE(joint_shares({{{1e-6, 0}}}).empty());           // unknown rate
  EXPECT_TRUE(joint_shares({{{1e-6, 1e-6}, 0}}).empty());     // no launches
  EXPECT_TRUE(joint_shares({{{1e-6, 1e-6}}, {{1e-6}}}).empty());  // devices differ
  EXPECT_EQ(joint_partition({{{1e-6, 2e-6}}}, 0), (std::vector<uint64_t>{0, 0}));
  EXPECT_EQ(joint_partition({{{1e-6}}}, 9), (std::vector<uint64_t>{9}));
}
