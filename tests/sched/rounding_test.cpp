#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "rounding.h"
#include "solvers.h"

namespace libsplit::sched {
namespace {

uint64_t sum(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t{0}); }

TEST(Rounding, SumsExactlyAndIsLargestRemainder) {
  EXPECT_EQ(round_to_groups({0.5, 0.5}, 3), (std::vector<uint64_t>{2, 1}));  // tie: lower index
  EXPECT_EQ(round_to_groups({0.1, 0.25, 0.65}, 10), (std::vector<uint64_t>{1, 3, 6}));  // 1, 2.5, 6.5
  EXPECT_EQ(round_to_groups({0.14, 0.86}, 10), (std::vector<uint64_t>{1, 9}));
  EXPECT_EQ(round_to_groups({1, 0, 0}, 7), (std::vector<uint64_t>{7, 0, 0}));
  EXPECT_EQ(round_to_groups({0, 0}, 5), (std::vector<uint64_t>{3, 2}));  // all zero: uniform
  EXPECT_EQ(round_to_groups({-1, NAN, 2}, 5), (std::vector<uint64_t>{0, 0, 5}));
  EXPECT_EQ(round_to_groups({0.3, 0.7}, 0), (std::vector<uint64_t>{0, 0}));
}

TEST(Rounding, RandomSharesAlwaysCoverEveryGroup) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> share(0, 1);
  for (int trial = 0; trial < 2000; ++trial) {
    size_t n = 1 + trial % 16;
    std::vector<double> x(n);
    for (double& v : x) v = share(random) < 0.2 ? 0 : share(random);
    uint64_t groups = uint64_t(random() % 100000);
    std::vector<uint64_t> counts = round_to_groups(x, groups);
    ASSERT_EQ(sum(counts), groups);
    std::vector<double> normal = normalized(x);
    for (size_t i = 0; i < n; ++i)  // never more than one group away from exact
      ASSERT_LE(std::fabs(double(counts[i]) - normal[i] * double(groups)), 1.0 + 1e-9);
    ASSERT_EQ(counts, round_to_groups(x, groups));  // deterministic
  }
}

TEST(Simplex, ProjectionIsOnTheSimplexAndKeepsSimplexPoints) {
  std::vector<double> p = project_to_simplex({0.8, 0.6, -0.3});
  EXPECT_NEAR(p[0], 0.6, 1e-12);
  EXPECT_NEAR(p[1], 0.4, 1e-12);
  EXPECT_EQ(p[2], 0.0);
  std::vector<double> inside = project_to_simplex({0.2, 0.3, 0.5});
  EXPECT_NEAR(inside[0], 0.2, 1e-12);
  EXPECT_NEAR(inside[2], 0.5, 1e-12);
}

TEST(FixedPointMap, SharesAreProportionalToSpeed) {
  // f = time per group; devices 1x and 3x faster -> 1/4, 3/4.
  std::vector<double> x = fixed_point_map({3e-6, 1e-6});
  EXPECT_NEAR(x[0], 0.25, 1e-12);
  EXPECT_NEAR(x[1], 0.75, 1e-12);
  // Balanced: x * numgroups * f is the same T on every device.
  std::vector<double> f = {2e-6, 5e-7, 1e-5};
  std::vector<double> y = fixed_point_map(f);
  EXPECT_NEAR(y[0] * f[0], y[1] * f[1], 1e-18);
  EXPECT_NEAR(y[1] * f[1], y[2] * f[2], 1e-18);
}

TEST(Broyden, FirstStepIsTheFixedPointStep) {
  BroydenSolver broyden;
  std::vector<double> f = {3e-6, 1e-6};
  std::vector<double> step = broyden.next({0.5, 0.5}, f);
  EXPECT_NEAR(step[0], 0.25, 1e-12);
  EXPECT_NEAR(step[1], 0.75, 1e-12);
}

}  // namespace
}  // namespace libsplit::sched
