// Owner computes' rule for leaving a partition (partition_change.h).
#include "partition_change.h"

#include <gtest/gtest.h>

namespace libsplit {
namespace {

// jacobi-2d large under a forced split on H100 + CPU: the first launch ran
// half the rows on the CPU (5.8 ms against 0.2 ms all on the GPU), and moving
// them to the GPU costs ~290 MB, 36 ms at the nominal 8 GB/s. The gain pays
// that back within a run of tens of launches: the partition must change
// early in the run, not never (with a horizon fixed at 4 launches it never
// did: 1.35x slower than without owner computes).
TEST(PartitionChange, APersistentGainPaysLargeMovesBackOverTheRun) {
  PartitionChangeFacts f{5.6e-3, 5.8e-3, 36e-3, 0, false};
  int changed_at = -1;
  for (int launch = 1; launch <= 40 && changed_at < 0; ++launch) {
    f.launches = launch;
    PartitionChangeVerdict v = judge_partition_change(f);
    if (v.change) changed_at = launch;
    f.won_before = v.better;
  }
  EXPECT_GT(changed_at, 4) << "36 ms of moves are not paid back within 4 launches of 5.6 ms";
  EXPECT_LE(changed_at, 8);
}

// Noise-sized gains never move data, however long the run.
TEST(PartitionChange, GainsBelowFivePercentNeverMoveData) {
  PartitionChangeFacts f{0.04e-3, 1e-3, 0.01e-3, 1000, true};
  EXPECT_FALSE(judge_partition_change(f).better);
}

// One better launch is not enough, unless the gain is clear (a quarter of
// the kernel time, moves paid back within the launch: a load step).
TEST(PartitionChange, OneNoisyLaunchDoesNotMoveDataButALoadStepDoes) {
  PartitionChangeFacts f{0.2e-3, 1e-3, 0.5e-3, 10, false};
  PartitionChangeVerdict v = judge_partition_change(f);
  EXPECT_TRUE(v.better);
  EXPECT_FALSE(v.change);
  f.won_before = true;
  EXPECT_TRUE(judge_partition_change(f).change);
  PartitionChangeFacts step{3e-3, 4e-3, 1e-3, 2, false};
  EXPECT_TRUE(judge_partition_change(step).change);
}

// A gain within twice the measured noise of the kernel's times is noise.
TEST(PartitionChange, GainsWithinTheMeasuredNoiseDoNotMoveData) {
  PartitionChangeFacts f{0.08e-3, 1e-3, 0.01e-3, 20, true, 0.02};
  EXPECT_TRUE(judge_partition_change(f).change);
  f.noise = 0.06;
  EXPECT_FALSE(judge_partition_change(f).better);
}

// A load step is no noise: a device 4x slower from one launch on raises the
// noise by at most 0.0625, and a clear gain from moving work off it is
// followed at once (the hidden-load test failed with the step counted in full).
TEST(PartitionChange, ALoadStepIsNotNoise) {
  double noise = 0.02;
  noise = updated_noise(noise, 1e-6, 4e-6);
  EXPECT_LE(noise, 0.02 * 0.75 + 0.0625 + 1e-12);
  // Device 0 held a third of the groups at 4x its old time: moving most of
  // them off gains about 60 % of the launch.
  EXPECT_TRUE(judge_partition_change({2.4e-3, 4e-3, 0.1e-3, 15, false, noise}).change);
  // Steady noise of 10 % a launch is measured as such.
  double steady = 0;
  for (int i = 0; i < 40; ++i) steady = updated_noise(steady, 1e-6, i % 2 ? 1.1e-6 : 0.9e-6);
  EXPECT_NEAR(steady, 0.1, 0.01);
}

// Nothing to move: the plan is taken as is.
TEST(PartitionChange, NoMovesMeansChange) {
  EXPECT_TRUE(judge_partition_change({0, 1e-3, 0, 1, false}).change);
}

}  // namespace
}  // namespace libsplit
