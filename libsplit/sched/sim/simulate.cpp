#include "simulate.h"

#include <algorithm>
#include <random>

namespace libsplit::sched::sim {

std::vector<DeviceInfo> device_infos(const Model& model) {
  std::vector<DeviceInfo> infos;
  for (const DeviceModel& device : model.devices) infos.push_back(device.info);
  return infos;
}

std::vector<LaunchResult> simulate(Scheduler& scheduler, const Model& model,
                                   const SimulationOptions& options) {
  const unsigned n = unsigned(model.devices.size());
  const uint64_t numgroups = model.numgroups;
  LaunchKey key = options.key;
  key.global[key.split_dim] = numgroups * key.local[key.split_dim];
  std::mt19937_64 random(options.seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  auto noisy = [&](double seconds) {
    if (model.noise <= 0) return seconds;
    return seconds * std::max(0.5, 1.0 + model.noise * gauss(random));
  };

  std::vector<LaunchResult> results;
  for (unsigned launch = 0; launch < options.launches; ++launch) {
    const WorkProfile work(model, launch);
    std::unique_ptr<LaunchPlan> plan = scheduler.plan(key, numgroups);
    LaunchResult result;
    result.launch = launch;
    result.whole_device = plan->whole_device();
    const bool split = !result.whole_device.has_value();
    result.device_seconds.assign(n, 0.0);
    result.groups.assign(n, 0);
    std::vector<double> true_clock(n, 0.0);
    std::vector<bool> done(n, false);
    std::vector<unsigned> covered(numgroups, 0);
    bool out_of_range = false;
    for (;;) {
      // The idle device with the lowest clock asks for work next.
      std::optional<unsigned> next_device;
      for (unsigned d = 0; d < n; ++d)
        if (!done[d] && (!next_device || result.device_seconds[d] < result.device_seconds[*next_device]))
          next_device = d;
      if (!next_device) break;
      const unsigned d = *next_device;
      std::optional<Chunk> chunk = plan->next(d);
      if (!chunk) {
        done[d] = true;
        continue;
      }
      if (chunk->device != d || chunk->group_count == 0 ||
          chunk->first_group + chunk->group_count > numgroups) {
        out_of_range = true;
        done[d] = true;
        continue;
      }
      for (uint64_t g = chunk->first_group; g < chunk->first_group + chunk->group_count; ++g)
        ++covered[g];
      ChunkCost cost = chunk_cost(model, work, d, chunk->first_group, chunk->group_count,
                                  launch, split);
      ChunkTiming timing{*chunk, noisy(cost.kernel), noisy(cost.transfer)};
      result.device_seconds[d] += timing.seconds + timing.transfer_seconds;
      true_clock[d] += cost.total();
      result.groups[d] += chunk->group_count;
      result.timings.push_back(timing);
    }
    result.covered_exactly_once =
        !out_of_range && std::all_of(covered.begin(), covered.end(), [](unsigned c) { return c == 1; });
    for (unsigned d = 0; d < n; ++d) result.predicted_seconds.push_back(plan->predicted_seconds(d));
    result.makespan = *std::max_element(result.device_seconds.begin(), result.device_seconds.end());
    result.true_makespan = *std::max_element(true_clock.begin(), true_clock.end());
    result.optimal = optimal_makespan(model, launch);
    scheduler.report(key, result.timings);
    results.push_back(std::move(result));
  }
  return results;
}

unsigned launches_to_reach(const std::vector<LaunchResult>& results, double tolerance) {
  for (const LaunchResult& result : results)
    if (result.over_optimal() <= tolerance) return result.launch + 1;
  return 0;
}

}  // namespace libsplit::sched::sim
