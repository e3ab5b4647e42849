// A simulated runtime loop: drives any Scheduler through LaunchPlan on a
// device Model. Devices pull chunks in time order (the device whose clock
// is lowest asks next), as the real runtime's per-device threads would.
#pragma once

#include <optional>
#include <vector>

#include "device_model.h"
#include "scheduler.h"

namespace libsplit::sched::sim {

struct LaunchResult {
  unsigned launch = 0;
  std::vector<ChunkTiming> timings;  // measured (noisy), in hand-out order
  std::vector<double> device_seconds;   // measured busy time per device
  std::vector<double> predicted_seconds;
  std::vector<uint64_t> groups;         // per device
  std::optional<unsigned> whole_device;
  double makespan = 0;       // measured
  double true_makespan = 0;  // noise-free makespan of the same schedule
  double optimal = 0;        // optimal_makespan(model, launch)
  bool covered_exactly_once = false;
  double over_optimal() const { return true_makespan / optimal - 1.0; }
};

struct SimulationOptions {
  unsigned launches = 10;
  uint64_t seed = 1;
  LaunchKey key{"simulated_kernel", 1, {4096, 1, 1}, {64, 1, 1}, 0};
};

std::vector<LaunchResult> simulate(Scheduler& scheduler, const Model& model,
                                   const SimulationOptions& options);

// First launch (1-based) whose true makespan is within `tolerance` of the
// optimum; 0 when none is.
unsigned launches_to_reach(const std::vector<LaunchResult>& results, double tolerance);

std::vector<DeviceInfo> device_infos(const Model& model);

}  // namespace libsplit::sched::sim
