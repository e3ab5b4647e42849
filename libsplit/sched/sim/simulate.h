// A simulated runtime loop: drives any Scheduler through LaunchPlan on a
// device Model. Devices pull chunks in time order (the device whose clock
// is lowest asks next), as the real runtime's per-device threads would.
// Launches run back to back on one clock. Probes (LaunchPlan::probes) are
// staged on the critical path (their transfer cost, paid before the launch's
// real work starts), then run on their device from when it is free; a device
// busy with a probe starts later launches' real work late. A probe is
// reported (Scheduler::report_probe) before the first plan() that starts
// after it finished; the ones still running at the end are reported then.
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
  double home_alone = 0;     // the whole launch on the model's home device
  std::vector<ChunkTiming> probes;  // probes issued by this plan (measured)
  double staging = 0;        // noise-free staging of those probes (in true_makespan)
  bool probes_valid = true;  // at most one per device, none beside real work, in range
  bool budget_spent = false; // LaunchPlan::exploration_budget_spent()
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

// What users feel: sums of true makespans over a run (probe staging and
// waits included), of the per-launch optimum (best split or best single
// device: at most the best single device alone and the oracle split) and of
// the home device alone.
struct RunTotals {
  double total = 0, optimal = 0, home_alone = 0;
  double vs_optimal() const { return total / optimal; }
  double vs_home() const { return total / home_alone; }
};
RunTotals run_totals(const std::vector<LaunchResult>& results, unsigned from = 0,
                     unsigned to = ~0u);

}  // namespace libsplit::sched::sim
