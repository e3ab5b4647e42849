// WorkProfile: the work along the groups learned from slices' times, and
// the split that balances devices over it.
#include <gtest/gtest.h>

#include "work_profile.h"

namespace libsplit::sched {
namespace {

TEST(WorkProfile, UnknownUntilTheFirstSliceThenFlatAtItsLevel) {
  WorkProfile p;
  p.reset(100);
  EXPECT_FALSE(p.known());
  EXPECT_EQ(p.work(0, 100), 0.0);
  p.learn(0, 25, 1.0);  // 0.04 per group, taken for every group
  ASSERT_TRUE(p.known());
  EXPECT_NEAR(p.work(0, 100), 4.0, 1e-12);
  EXPECT_NEAR(p.work(60, 10), 0.4, 1e-12);
}

TEST(WorkProfile, ASliceScalesItsOwnGroupsAndKeepsTheShapeInside) {
  WorkProfile p;
  p.reset(8);
  p.learn(0, 8, 8.0);   // 1 per group
  p.learn(4, 4, 12.0);  // the second half weighs 3 per group
  EXPECT_NEAR(p.work(0, 4), 4.0, 1e-12);
  EXPECT_NEAR(p.work(4, 4), 12.0, 1e-12);
  p.learn(2, 4, 4.0);  // 1 + 1 + 3 + 3 measured as 4: halved, shape kept
  EXPECT_NEAR(p.work(2, 2), 1.0, 1e-12);
  EXPECT_NEAR(p.work(4, 2), 3.0, 1e-12);
  EXPECT_NEAR(p.work(0, 2), 2.0, 1e-12);  // untouched
}

TEST(WorkProfile, MoreGroupsThanBinsAreCoveredInPart) {
  WorkProfile p;
  p.reset(10 * WorkProfile::kMaxBins);  // 10 groups a bin
  p.learn(0, 10 * WorkProfile::kMaxBins, 10.0 * WorkProfile::kMaxBins);
  p.learn(5, 10, 20.0);  // half of bin 0 and half of bin 1: each scaled by 1.5
  EXPECT_NEAR(p.work(0, 20), 30.0, 1e-9);
  EXPECT_NEAR(p.work(20, 10), 10.0, 1e-9);
}

TEST(WorkProfile, BalanceGivesTheHeavyMiddleToNoOneAlone) {
  // Mandelbrot's shape: the middle half of the groups weighs 8x the rest.
  WorkProfile p;
  p.reset(400);
  p.learn(0, 400, 400.0);
  p.learn(0, 100, 100.0), p.learn(100, 200, 1600.0), p.learn(300, 100, 100.0);
  const std::vector<uint64_t> even = p.balance({1, 1, 1, 1}, {0, 0, 0, 0});
  ASSERT_EQ(even.size(), 4u);
  EXPECT_EQ(even[0] + even[1] + even[2] + even[3], 400u);
  // 1800 units over 4: 450 each: 100 light groups + 43.75 heavy ones at the edges.
  EXPECT_NEAR(double(even[0]), 143.75, 1.0);
  EXPECT_NEAR(double(even[1]), 56.25, 1.0);
  EXPECT_NEAR(double(even[2]), 56.25, 1.0);
  EXPECT_NEAR(double(even[3]), 143.75, 1.0);
  // A device twice as slow, and one not in the split.
  const std::vector<uint64_t> mixed = p.balance({2, 0, 1}, {0, 0, 0});
  EXPECT_EQ(mixed[1], 0u);
  EXPECT_EQ(mixed[0] + mixed[2], 400u);
  const double slow = 2 * p.work(0, mixed[0]), fast = p.work(mixed[0], mixed[2]);
  EXPECT_NEAR(slow / fast, 1.0, 0.02);
}

}  // namespace
}  // namespace libsplit::sched
