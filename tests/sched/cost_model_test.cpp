// DeviceCostModel::Line::groups_within answers what a binary search over
// predict() answers (the split scheduler used one ~1000 times per report).
#include "cost_model.h"
#include "monotone_search.h"

#include <gtest/gtest.h>

#include <random>

namespace libsplit::sched {
namespace {

uint64_t searched(const DeviceCostModel& cost, double seconds, uint64_t limit) {
  uint64_t low = 0, high = limit;
  while (low < high) {
    const uint64_t mid = (low + high + 1) / 2;
    if (cost.predict(mid) <= seconds)
      low = mid;
    else
      high = mid - 1;
  }
  return low;
}

TEST(DeviceCostModel, GroupsWithinIsTheBinarySearchOverPredict) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> groups(1, 5000);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int model = 0; model < 300; ++model) {
    DeviceCostModel cost;
    const int samples = model % 5;  // 0: unknown, predicts 0 everywhere
    const double overhead = model % 3 == 0 ? 0 : 1e-4 * unit(rng), per_group = 1e-6 * (0.1 + unit(rng));
    for (int s = 0; s < samples; ++s) {
      const uint64_t g = model % 7 == 0 ? 64 : groups(rng);  // same size: the per-group fallback
      cost.add(g, (overhead + per_group * double(g)) * (0.9 + 0.2 * unit(rng)));
    }
    const uint64_t limit = groups(rng);
    for (int q = 0; q < 40; ++q) {
      const double budget = cost.predict(limit) * 1.2 * unit(rng);
      ASSERT_EQ(cost.line().groups_within(budget, limit), searched(cost, budget, limit))
          << "model " << model << " budget " << budget << " limit " << limit;
    }
    // Exactly at a predicted time, and nothing at all.
    const uint64_t g = limit / 3;
    EXPECT_EQ(cost.line().groups_within(cost.predict(g), limit), searched(cost, cost.predict(g), limit));
    EXPECT_EQ(cost.line().groups_within(0, limit), searched(cost, 0, limit));
  }
}

TEST(DeviceCostModel, FlatCostTakesAllOrNothing) {
  DeviceCostModel cost;
  cost.add(100, 0.0);  // zero seconds: every size predicted free
  EXPECT_EQ(cost.line().groups_within(0.0, 1000), 1000u);
}

// largest_within answers what a binary search answers, for costs that grow:
// affine, the largest of two lines, steps, flat.
TEST(LargestWithin, IsTheBinarySearchForGrowingCosts) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0, 1);
  auto binary = [](const auto& cost, uint64_t cap, double budget) {
    uint64_t low = 0, high = cap;
    while (low < high) {
      const uint64_t mid = (low + high + 1) / 2;
      if (cost(mid) <= budget)
        low = mid;
      else
        high = mid - 1;
    }
    return low;
  };
  for (int c = 0; c < 2000; ++c) {
    const double a = unit(rng) * 1e-3, b = unit(rng) * 1e-5, a2 = unit(rng) * 2e-3, b2 = unit(rng) * 2e-6;
    const uint64_t step = 1 + uint64_t(unit(rng) * 50);
    auto affine = [&](uint64_t g) { return a + b * double(g); };
    auto two_lines = [&](uint64_t g) { return std::max(a + b * double(g), a2 + b2 * double(g)); };
    auto steps = [&](uint64_t g) { return a + b * double(g / step * step); };
    auto flat = [&](uint64_t) { return a; };
    const uint64_t caps[] = {0, 1, 2, 3, 1 + uint64_t(unit(rng) * 5000), uint64_t(1) << 40};
    for (uint64_t cap : caps) {
      const double budget = (c % 9 == 0 ? 0.0 : affine(cap) * 1.3 * unit(rng));
      ASSERT_EQ(largest_within(affine, cap, budget), binary(affine, cap, budget)) << c << " cap " << cap;
      ASSERT_EQ(largest_within(two_lines, cap, budget), binary(two_lines, cap, budget)) << c << " cap " << cap;
      ASSERT_EQ(largest_within(steps, cap, budget), binary(steps, cap, budget)) << c << " cap " << cap;
      ASSERT_EQ(largest_within(flat, cap, budget), binary(flat, cap, budget)) << c << " cap " << cap;
    }
  }
}

TEST(LargestWithin, AsksAFewCostsForALine) {
  int asked = 0;
  auto cost = [&](uint64_t g) {
    ++asked;
    return 1e-4 + 1e-7 * double(g);
  };
  EXPECT_EQ(largest_within(cost, 1u << 20, 1e-4 + 1e-7 * 1234.5), 1234u);
  EXPECT_LE(asked, 6);  // a binary search asks 20
}

}  // namespace
}  // namespace libsplit::sched
