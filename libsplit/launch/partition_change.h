// Owner computes' rule for leaving the partition a shape's data lives in
// (locality.h): a static split moves to another partition only when what it
// gains in kernel time pays back the one-off moves. Pure: unit-tested
// without OpenCL (tests/runtime/partition_change_test.cpp).
#pragma once

namespace libsplit {

struct PartitionChangeFacts {
  double gain = 0;          // kernel seconds per launch the new partition saves
  double kept_seconds = 0;  // kernel seconds per launch of the kept partition
  double move_seconds = 0;  // one-off data movement of the change
  double launches = 0;      // launches of this kernel at this shape so far
  bool won_before = false;  // the change was better at the previous launch too
  // Relative noise of the kernel's measured times per group (smoothed
  // relative change from launch to launch): gains within twice it are noise.
  double noise = 0;
};

struct PartitionChangeVerdict {
  bool better = false;  // pays back and gains above the noise
  bool change = false;  // ... and did so twice in a row, or clearly now
};

// Better: the gain, over max(4, launches so far) launches, exceeds the
// moves (the data then stays where it was moved, and a run that has gone on
// for n launches is taken to go on for about as many: the same horizon the
// scheduler gives a split's staging), and it is above 5 % of the kernel
// time and twice the measured noise (below, plans differ by noise: on the
// loaded 2-core CI machine fdtd-2d's joint partition followed it and moved
// 40-250 KB at 8 of 24 launches where the halo is 5 KB). Change: better at two launches in a
// row, or at once when it gains a quarter of the kernel time and pays its
// moves back within the launch.
PartitionChangeVerdict judge_partition_change(const PartitionChangeFacts& facts);

// The noise after a launch measured `rate` seconds per group where the
// smoothed rate was `previous`: the relative change, smoothed over about four
// launches, each change counted at most 25 %: a larger one is a load step,
// which the noise must not absorb (a 4x step counted in full made the noise
// 0.75, and owner computes then kept a device it had just slowed down at its
// share for good: the hidden-load test).
double updated_noise(double noise, double previous, double rate);

}  // namespace libsplit
