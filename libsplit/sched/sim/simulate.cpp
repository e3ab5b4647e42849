#include "simulate.h"

#include <algorithm>
#include <random>

namespace libsplit::sched::sim {

std::vector<DeviceInfo> device_infos(const Model& model) {
  std::vector<DeviceInfo> infos;
  for (const DeviceModel& device : model.devices) infos.push_back(device.info);
  return infos;
}

namespace {
struct RunningProbe {
  ChunkTiming timing;  // measured
  double end = 0;      // true global time it finishes
};
}  // namespace

std::vector<LaunchResult> simulate(Scheduler& scheduler, const Model& model,
                                   const SimulationOptions& options) {
  const unsigned n = unsigned(model.devices.size());
  const uint64_t numgroups = model.numgroups;
  LaunchKey key = options.key;
  key.global[key.split_dim] = numgroups * key.local[key.split_dim];
  key.home = model.home;
  std::mt19937_64 random(options.seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  auto noisy = [&](double seconds) {
    if (model.noise <= 0) return seconds;
    return seconds * std::max(0.5, 1.0 + model.noise * gauss(random));
  };

  double now = 0;                        // global clock: start of the launch
  std::vector<double> free_at(n, 0.0);   // when each device finishes its probe
  std::vector<RunningProbe> running;
  auto deliver = [&](double until) {
    std::sort(running.begin(), running.end(),
              [](const RunningProbe& a, const RunningProbe& b) { return a.end < b.end; });
    size_t done = 0;
    while (done < running.size() && running[done].end <= until)
      scheduler.report_probe(key, running[done++].timing);
    running.erase(running.begin(), running.begin() + long(done));
  };

  std::vector<LaunchResult> results;
  for (unsigned launch = 0; launch < options.launches; ++launch) {
    deliver(now);
    const WorkProfile work(model, launch);
    std::unique_ptr<LaunchPlan> plan = scheduler.plan(key, numgroups);
    LaunchResult result;
    result.launch = launch;
    result.whole_device = plan->whole_device();
    result.budget_spent = plan->exploration_budget_spent();
    const bool split = !result.whole_device.has_value();

    // Probes: staged one after the other on the critical path.
    std::vector<bool> probed(n, false);
    double measured_staging = 0;
    for (const Chunk& probe : plan->probes()) {
      if (probe.device >= n || probed[probe.device] || probe.group_count == 0 ||
          probe.first_group + probe.group_count > numgroups) {
        result.probes_valid = false;
        continue;
      }
      probed[probe.device] = true;
      ChunkCost cost = chunk_cost(model, work, probe.device, probe.first_group,
                                  probe.group_count, launch, true);
      ChunkTiming timing{probe, noisy(cost.kernel), noisy(cost.transfer)};
      result.staging += cost.transfer;
      measured_staging += timing.transfer_seconds;
      const double start = std::max(now + result.staging, free_at[probe.device]);
      free_at[probe.device] = start + cost.kernel;
      running.push_back({timing, free_at[probe.device]});
      result.probes.push_back(timing);
    }

    result.device_seconds.assign(n, 0.0);
    result.groups.assign(n, 0);
    // Real work starts after the staging, or when the device's probe ends.
    std::vector<double> true_clock(n, 0.0);
    for (unsigned d = 0; d < n; ++d)
      true_clock[d] = std::max(result.staging, probed[d] ? 0.0 : free_at[d] - now);
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
      if (probed[d]) result.probes_valid = false;  // a probe beside real work
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
    result.makespan = measured_staging +
                      *std::max_element(result.device_seconds.begin(), result.device_seconds.end());
    result.true_makespan = result.staging;
    for (unsigned d = 0; d < n; ++d)
      if (result.groups[d] > 0) {
        result.true_makespan = std::max(result.true_makespan, true_clock[d]);
        if (!probed[d]) free_at[d] = std::max(free_at[d], now + true_clock[d]);
      }
    result.optimal = optimal_makespan(model, launch);
    result.home_alone =
        chunk_cost(model, work, model.home, 0, numgroups, launch, false).total();
    if (plan->wants_report()) scheduler.report(key, result.timings);
    now += result.true_makespan;
    results.push_back(std::move(result));
  }
  // The app goes on: whatever probes still run report in time.
  deliver(INFINITY);
  return results;
}

unsigned launches_to_reach(const std::vector<LaunchResult>& results, double tolerance) {
  for (const LaunchResult& result : results)
    if (result.over_optimal() <= tolerance) return result.launch + 1;
  return 0;
}

RunTotals run_totals(const std::vector<LaunchResult>& results, unsigned from, unsigned to) {
  RunTotals totals;
  for (unsigned i = from; i < results.size() && i < to; ++i) {
    totals.total += results[i].true_makespan;
    totals.optimal += results[i].optimal;
    totals.home_alone += results[i].home_alone;
  }
  return totals;
}

}  // namespace libsplit::sched::sim
