// DeviceCostModel::Line::groups_within answers what a binary search over
// predict() answers (the split scheduler used one ~1000 times per report).
#include "cost_model.h"

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

}  // namespace
}  // namespace libsplit::sched
