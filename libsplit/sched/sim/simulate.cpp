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

// One simulated run: the global clock, the probes still running, and the
// noise (one random sequence, drawn in the order the run measures).
class Simulation {
 public:
  Simulation(Scheduler& scheduler, const Model& model, const SimulationOptions& options)
      : scheduler_(scheduler), model_(model), n_(unsigned(model.devices.size())), numgroups_(model.numgroups),
        key_(options.key), random_(options.seed), free_at_(n_, 0.0), holder_(numgroups_, model.home) {
    key_.global[key_.split_dim] = numgroups_ * key_.local[key_.split_dim];
    key_.home = model.home;
  }

  LaunchResult launch(unsigned launch);
  // Reports the probes that finished by `until`.
  void deliver(double until);

 private:
  double noisy(double seconds) {
    if (model_.noise <= 0) return seconds;
    return seconds * std::max(0.5, 1.0 + model_.noise * gauss_(random_));
  }
  // Probes: staged one after the other on the critical path. Returns the
  // staging as measured.
  double stage_probes(const LaunchPlan& plan, const WorkProfile& work, unsigned launch, LaunchResult& result,
                      std::vector<bool>& probed);
  // The real work, the idle device with the lowest clock asking for the
  // next chunk; true_clock: each device's true busy time.
  void run_chunks(LaunchPlan& plan, const WorkProfile& work, unsigned launch, bool split,
                  const std::vector<bool>& probed, LaunchResult& result, std::vector<double>& true_clock);

  Scheduler& scheduler_;
  const Model& model_;
  const unsigned n_;
  const uint64_t numgroups_;
  LaunchKey key_;
  std::mt19937_64 random_;
  std::normal_distribution<double> gauss_{0.0, 1.0};
  double now_ = 0;               // global clock: start of the launch
  std::vector<double> free_at_;  // when each device finishes its probe
  std::vector<unsigned> holder_;
  std::vector<RunningProbe> running_;
};

void Simulation::deliver(double until) {
  std::sort(running_.begin(), running_.end(),
            [](const RunningProbe& a, const RunningProbe& b) { return a.end < b.end; });
  size_t done = 0;
  while (done < running_.size() && running_[done].end <= until)
    scheduler_.report_probe(key_, running_[done++].timing);
  running_.erase(running_.begin(), running_.begin() + long(done));
}

double Simulation::stage_probes(const LaunchPlan& plan, const WorkProfile& work, unsigned launch,
                                LaunchResult& result, std::vector<bool>& probed) {
  double measured_staging = 0;
  double room = plan.probe_staging_room();
  for (const Chunk& probe : plan.probes()) {
    if (probe.device >= n_ || probed[probe.device] || probe.group_count == 0 ||
        probe.first_group + probe.group_count > numgroups_) {
      result.probes_valid = false;
      continue;
    }
    ChunkCost cost = chunk_cost(model_, work, probe.device, probe.first_group,
                                probe.group_count, launch, true);
    if (cost.transfer > room) {
      // As the runtime does (launch_probe.cpp): a probe whose inputs would
      // take longer to stage than the budget has left is not run, and is
      // reported so (no time) with the launch.
      running_.push_back({ChunkTiming{probe, 0, 0}, now_});
      continue;
    }
    room -= cost.transfer;
    probed[probe.device] = true;
    ChunkTiming timing{probe, noisy(cost.kernel), noisy(cost.transfer)};
    result.staging += cost.transfer;
    measured_staging += timing.transfer_seconds;
    const double start = std::max(now_ + result.staging, free_at_[probe.device]);
    free_at_[probe.device] = start + cost.kernel;
    running_.push_back({timing, free_at_[probe.device]});
    result.probes.push_back(timing);
  }
  return measured_staging;
}

void Simulation::run_chunks(LaunchPlan& plan, const WorkProfile& work, unsigned launch, bool split,
                            const std::vector<bool>& probed, LaunchResult& result, std::vector<double>& true_clock) {
  std::vector<bool> done(n_, false);
  std::vector<unsigned> covered(numgroups_, 0);
  bool out_of_range = false;
  for (;;) {
    // The idle device with the lowest clock asks for work next.
    std::optional<unsigned> next_device;
    for (unsigned d = 0; d < n_; ++d)
      if (!done[d] && (!next_device || result.device_seconds[d] < result.device_seconds[*next_device]))
        next_device = d;
    if (!next_device) break;
    const unsigned d = *next_device;
    std::optional<Chunk> chunk = plan.next(d);
    if (!chunk) {
      done[d] = true;
      continue;
    }
    if (chunk->device != d || chunk->group_count == 0 ||
        chunk->first_group + chunk->group_count > numgroups_) {
      out_of_range = true;
      done[d] = true;
      continue;
    }
    if (probed[d]) result.probes_valid = false;  // a probe beside real work
    for (uint64_t g = chunk->first_group; g < chunk->first_group + chunk->group_count; ++g)
      ++covered[g];
    ChunkCost cost = chunk_cost(model_, work, d, chunk->first_group, chunk->group_count,
                                launch, split);
    // Groups whose output another device holds move here first, once.
    uint64_t moved = 0;
    for (uint64_t g = chunk->first_group; g < chunk->first_group + chunk->group_count; ++g)
      moved += holder_[g] != d, holder_[g] = d;
    cost.transfer += model_.move_per_group * double(moved);
    ChunkTiming timing{*chunk, noisy(cost.kernel), noisy(cost.transfer)};
    result.device_seconds[d] += timing.seconds + timing.transfer_seconds;
    true_clock[d] += cost.total();
    result.groups[d] += chunk->group_count;
    result.timings.push_back(timing);
  }
  result.covered_exactly_once =
      !out_of_range && std::all_of(covered.begin(), covered.end(), [](unsigned c) { return c == 1; });
}

LaunchResult Simulation::launch(unsigned launch) {
  deliver(now_);
  const WorkProfile work(model_, launch);
  std::unique_ptr<LaunchPlan> plan = scheduler_.plan(key_, numgroups_);
  LaunchResult result;
  result.launch = launch;
  result.whole_device = plan->whole_device();
  result.budget_spent = plan->exploration_budget_spent();
  const bool split = !result.whole_device.has_value();
  std::vector<bool> probed(n_, false);
  const double measured_staging = stage_probes(*plan, work, launch, result, probed);

  result.device_seconds.assign(n_, 0.0);
  result.groups.assign(n_, 0);
  // Real work starts after the staging, or when the device's probe ends.
  std::vector<double> true_clock(n_, 0.0);
  for (unsigned d = 0; d < n_; ++d)
    true_clock[d] = std::max(result.staging, probed[d] ? 0.0 : free_at_[d] - now_);
  run_chunks(*plan, work, launch, split, probed, result, true_clock);
  for (unsigned d = 0; d < n_; ++d) result.predicted_seconds.push_back(plan->predicted_seconds(d));
  result.makespan = measured_staging +
                    *std::max_element(result.device_seconds.begin(), result.device_seconds.end());
  result.true_makespan = result.staging;
  for (unsigned d = 0; d < n_; ++d)
    if (result.groups[d] > 0) {
      result.true_makespan = std::max(result.true_makespan, true_clock[d]);
      if (!probed[d]) free_at_[d] = std::max(free_at_[d], now_ + true_clock[d]);
    }
  result.optimal = optimal_makespan(model_, launch);
  result.home_alone =
      chunk_cost(model_, work, model_.home, 0, numgroups_, launch, false).total();
  if (plan->wants_report()) scheduler_.report(key_, result.timings);
  now_ += result.true_makespan;
  return result;
}

}  // namespace

std::vector<LaunchResult> simulate(Scheduler& scheduler, const Model& model,
                                   const SimulationOptions& options) {
  Simulation simulation(scheduler, model, options);
  std::vector<LaunchResult> results;
  for (unsigned launch = 0; launch < options.launches; ++launch) results.push_back(simulation.launch(launch));
  // The app goes on: whatever probes still run report in time.
  simulation.deliver(INFINITY);
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
