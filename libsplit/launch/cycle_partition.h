// One partition for a repeating cycle of kernels (owner computes, locality.h).
//
// The kernels of a time-step cycle that share buffers run on one partition
// of their common NDRange (contiguous slices, one per device, in device
// order), so that only halos move between them. Which partition: the one
// minimizing the cycle's kernel time
//
//   T(g) = sum over kernels k of  w_k * max over devices d of  g_d * r_kd
//
// (g_d groups on device d, sum g_d = G; r_kd kernel k's measured seconds per
// group on device d; w_k its launches per cycle). T is convex and piecewise
// linear. Written as a linear program in the kernels' times t_k and the
// devices' shares u_d, homogeneous in both (T scales with G):
//
//   maximize  sum_d u_d  s.t.  r_kd u_d <= t_k (all k, d),  sum_k w_k t_k <= 1,
//             u, t >= 0
//
// (the most groups a cycle of unit time covers; the optimal shares are u / sum
// u, the cycle's time for G groups G / sum u). Every constraint is "<=" with a
// non-negative right-hand side, so the origin is a feasible start and a plain
// simplex (Bland's rule: the many zero right-hand sides make it degenerate)
// solves it exactly; it has devices x kernels + 1 rows, devices + kernels
// columns. With 2 devices the optimum is at one kernel's own balance point
// (the breakpoints of T), which the unit tests check against.
//
// Pure C++, no OpenCL (tests/runtime/cycle_partition_test.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace libsplit {

struct CycleKernel {
  std::vector<double> seconds_per_group;  // per device, each > 0
  double launches = 1;                    // per cycle, > 0
};

// The cycle's kernel time for groups g (per device).
double cycle_seconds(const std::vector<CycleKernel>& kernels, const std::vector<uint64_t>& groups);

// The optimal shares (per device, summing to 1) of the linear program above;
// empty when it has no answer (no kernel, a rate or weight not > 0, devices
// differing between kernels).
std::vector<double> joint_shares(const std::vector<CycleKernel>& kernels);

// Whole groups per device, summing to `total`: the shares rounded (floors,
// then each remaining group where it adds least to the cycle's time), then
// single groups moved between devices while that lowers the time. Within one
// group per device of the linear program's optimum (its time at most
// sum_k w_k max_d r_kd above the real-valued bound). Empty as joint_shares.
std::vector<uint64_t> joint_partition(const std::vector<CycleKernel>& kernels, uint64_t total);

}  // namespace libsplit
