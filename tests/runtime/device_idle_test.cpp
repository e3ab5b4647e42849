// The idle time of a device between the app's consecutive launches
// (device_idle.h), as the scheduler is told it.
#include "device_idle.h"

#include <gtest/gtest.h>

namespace libsplit {
namespace {

TEST(DeviceIdle, MeasuredOnlyAfterTheAppsPreviousLaunchOnTheSameDevice) {
  DeviceIdle idle;
  EXPECT_LT(idle.ran(0, 1, 1000, 2000), 0) << "nothing before the first launch";
  EXPECT_DOUBLE_EQ(idle.ran(0, 2, 52000, 60000), 50e-6);
  // Launch 3 ran elsewhere: device 0's next launch follows nothing it knows.
  EXPECT_LT(idle.ran(1, 3, 70000, 80000), 0);
  EXPECT_LT(idle.ran(0, 4, 90000, 95000), 0);
  EXPECT_DOUBLE_EQ(idle.ran(1, 4, 90000, 95000), 10e-6);
  EXPECT_DOUBLE_EQ(idle.ran(0, 5, 95500, 99000), 0.5e-6);
}

// Whole launches report from driver callbacks, possibly out of order: a late
// report neither measures against a later launch nor replaces it.
TEST(DeviceIdle, ReportsOutOfOrderMeasureNothingWrong) {
  DeviceIdle idle;
  idle.ran(0, 1, 1000, 2000);
  EXPECT_LT(idle.ran(0, 3, 30000, 40000), 0);
  EXPECT_LT(idle.ran(0, 2, 12000, 20000), 0) << "only the latest launch is kept";
  EXPECT_DOUBLE_EQ(idle.ran(0, 4, 41000, 42000), 1e-6) << "4 after 3, not after the late 2";
  EXPECT_LT(idle.ran(0, 5, 0, 0), 0) << "no times read";
  EXPECT_DOUBLE_EQ(idle.ran(0, 5, 43000, 44000), 1e-6);
}

}  // namespace
}  // namespace libsplit

namespace libsplit {
namespace {

// A whole launch that first moved data to its device waited for the moves
// (priced as such), not for the host: no idle time; the next one measures.
TEST(DeviceIdle, AWholeLaunchThatMovedDataTellsNoIdleTime) {
  device_idle().ran(7, 100, 1000, 2000);
  EXPECT_LT(idle_unless_moved(7, 101, 400000, 500000, 0.36e-3), 0);
  EXPECT_DOUBLE_EQ(idle_unless_moved(7, 102, 520000, 600000, 0), 20e-6);
}

}  // namespace
}  // namespace libsplit
