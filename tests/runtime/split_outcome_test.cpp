// Which split launches ran beside the background opening of a device
// (split_outcome.h): their host and idle times are not judged, because on
// 4 H100 an opening stalls the app's driver calls and a split judged by the
// stall was given up (2mm over 4 GPUs + CPU then ran whole in every later run).
#include "split_outcome.h"

#include <gtest/gtest.h>

namespace libsplit {
namespace {

TEST(SplitOutcome, ALaunchIsBesideAnOpeningOnlyIfOneRanSinceThePreviousLaunchEnded) {
  // Runtime::opening_epoch: even while nothing opens, odd during an opening.
  EXPECT_FALSE(beside_opening(0, 0, 0)) << "nothing ever opened";
  EXPECT_FALSE(beside_opening(2, 2, 2)) << "an opening ended before the previous launch did";
  EXPECT_TRUE(beside_opening(1, 1, 1)) << "an opening in progress throughout";
  EXPECT_TRUE(beside_opening(0, 0, 1)) << "an opening began during the launch";
  EXPECT_TRUE(beside_opening(1, 1, 2)) << "an opening ended during the launch";
  EXPECT_TRUE(beside_opening(0, 2, 2)) << "an opening ran between the two launches";
}

}  // namespace
}  // namespace libsplit
