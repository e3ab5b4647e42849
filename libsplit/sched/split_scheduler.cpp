#include "split_scheduler.h"

#include <algorithm>
#include <cmath>

#include "cost_model.h"
#include "plans.h"
#include "rounding.h"

namespace libsplit::sched {

std::vector<double> nominal_powers(const std::vector<DeviceInfo>& devices) {
  std::vector<double> powers;
  for (const DeviceInfo& device : devices)
    powers.push_back(double(std::max(1u, device.compute_units)) *
                     double(std::max(1u, device.clock_mhz)) * (device.is_gpu ? kGpuWeight : 1.0));
  return powers;
}

namespace {
CliffGuardPolicy overshoot_guard_policy() {
  CliffGuardPolicy policy;
  policy.max_steps = OvershootPolicy::kMaxSteps;
  policy.stop_below_one_group = true;
  policy.cliff_imbalance = OvershootPolicy::kCliffImbalance;
  policy.hold_max = OvershootPolicy::kSettledLaunches;
  policy.hold_makespan_tolerance = OvershootPolicy::kHold;
  return policy;
}

// Next re-check interval after a re-check confirmed the current mode: the
// wider the gap (loser / winner), the rarer the re-checks.
unsigned backoff(unsigned interval, double loser, double winner) {
  return winner > 0 && loser > 1.5 * winner ? 4 * interval : 2 * interval;
}
}  // namespace

struct SplitScheduler::KeyState {
  std::unique_ptr<GranularitySolver> solver;
  std::vector<double> next_shares;
  std::vector<DeviceCostModel> busy_cost;    // kernel + transfer, split launches
  std::vector<DeviceCostModel> kernel_cost;  // kernel only: whole-run estimates
  unsigned launches = 0;                     // reports so far
  unsigned split_launches = 0;
  // Split-vs-whole bookkeeping.
  std::optional<unsigned> whole_mode;
  std::optional<unsigned> planned_whole;     // what the last plan did
  std::vector<uint64_t> last_groups;         // latest split launch, per device
  std::vector<double> last_kernel;           // its kernel seconds per device
  double split_seconds = 0;                  // latest split makespan
  double split_predicted = 0;                // balanced split makespan predicted then
  bool split_balanced = false;               // latest split launch was balanced
  unsigned last_split_launch = 0;
  unsigned split_recheck = WholePolicy::kRecheckSplitFirst;
  unsigned whole_recheck = WholePolicy::kRecheckWholeFirst;
  std::vector<double> whole_seconds;         // latest whole makespan per device
  std::vector<long> whole_checked_at;        // launch index, -1 never
  CliffGuard guard{overshoot_guard_policy()};
  // Warm start bookkeeping.
  std::optional<StoredDecision> saved;
  long saved_at = -1;
};

SplitScheduler::SplitScheduler(SplitSchedulerConfig config,
                               const std::vector<DeviceInfo>& devices,
                               const SchedulerOptions& options)
    : config_(std::move(config)),
      device_count_(devices.size()),
      powers_(nominal_powers(devices)),
      allow_whole_(options.allow_whole && config_.adaptive) {
  if (config_.adaptive && !options.warm_start_dir.empty())
    warm_start_.emplace(options.warm_start_dir, devices);
}

SplitScheduler::~SplitScheduler() = default;

SplitScheduler::KeyState& SplitScheduler::state_for(const LaunchKey& key) {
  std::unique_ptr<KeyState>& slot = states_[key];
  if (slot) return *slot;
  slot = std::make_unique<KeyState>();
  KeyState& state = *slot;
  state.solver = config_.make_solver();
  state.next_shares = normalized(config_.initial_shares);
  state.busy_cost.resize(device_count_);
  state.kernel_cost.resize(device_count_);
  state.whole_seconds.assign(device_count_, 0.0);
  state.whole_checked_at.assign(device_count_, -1);
  state.last_groups.assign(device_count_, 0);
  state.last_kernel.assign(device_count_, 0.0);
  if (warm_start_) {
    if (std::optional<StoredDecision> stored = warm_start_->load(key)) {
      state.next_shares = stored->shares;
      if (allow_whole_) state.whole_mode = stored->whole_device;
      state.saved = std::move(stored);
    }
  }
  return state;
}

std::optional<unsigned> SplitScheduler::decide_whole(KeyState& state,
                                                     uint64_t numgroups) const {
  if (device_count_ == 1) return 0u;
  if (!allow_whole_) return std::nullopt;
  if (state.whole_mode) {
    // Re-check the split now and then: loads change, the split may win again.
    bool recheck = state.launches >= state.last_split_launch + state.split_recheck;
    if (recheck) return std::nullopt;
    return state.whole_mode;
  }
  if (state.split_launches < WholePolicy::kMinSplitLaunches || state.split_seconds <= 0)
    return std::nullopt;
  // The device that took the most groups of the latest split: the fastest
  // one in a balanced split, so the only one worth running whole. (A fit
  // extrapolated from a small slice is not trusted.)
  std::optional<unsigned> best;
  for (unsigned d = 0; d < device_count_; ++d)
    if (state.last_groups[d] > 0 && (!best || state.last_groups[d] > state.last_groups[*best]))
      best = d;
  if (!best) return std::nullopt;
  // Geometric mean of the linear fit (optimistic when two noisy samples make
  // the slope too flat) and the proportional estimate (pessimistic when there
  // is a fixed launch overhead).
  const double fit = state.kernel_cost[*best].predict(numgroups);
  const double proportional =
      state.last_kernel[*best] * double(numgroups) / double(state.last_groups[*best]);
  const double best_estimate =
      std::max(std::sqrt(std::max(fit, 0.0) * proportional), state.last_kernel[*best]);
  long checked = state.whole_checked_at[*best];
  if (checked >= 0 && long(state.launches) < checked + long(state.whole_recheck))
    return std::nullopt;
  if (best_estimate > WholePolicy::kExploreIfWithin * split_reference(state)) return std::nullopt;
  return best;
}

double SplitScheduler::predicted_balanced(const KeyState& state, uint64_t numgroups) const {
  // Smallest T such that the devices, each taking the most groups its cost
  // model finishes by T, cover numgroups.
  std::vector<DeviceCostModel::Line> lines;
  for (const DeviceCostModel& cost : state.busy_cost)
    if (cost.known()) lines.push_back(cost.line());
  auto groups_by = [&](double t) {
    uint64_t total = 0;
    for (const DeviceCostModel::Line& line : lines) total += line.groups_within(t, numgroups);
    return total;
  };
  double high = 0;
  for (const DeviceCostModel::Line& line : lines) high = std::max(high, line.at(numgroups));
  if (high <= 0) return 0;
  double low = 0;
  // To a millionth of the time (50 halvings, twice what that needs, were
  // a tenth of a forced split launch's host instructions).
  while (high - low > 1e-6 * high) {
    double mid = 0.5 * (low + high);
    (groups_by(mid) >= numgroups ? high : low) = mid;
  }
  return high;
}

double SplitScheduler::split_reference(const KeyState& state) const {
  if (state.split_balanced || state.split_predicted <= 0) return state.split_seconds;
  return std::min(state.split_seconds, state.split_predicted);
}

std::unique_ptr<LaunchPlan> SplitScheduler::plan(const LaunchKey& key, uint64_t numgroups) {
  std::lock_guard lock(mutex_);
  KeyState& state = state_for(key);
  std::optional<unsigned> whole = decide_whole(state, numgroups);
  state.planned_whole = whole;
  std::vector<uint64_t> groups;
  std::vector<double> predicted(device_count_, 0.0);
  if (whole) {
    groups.assign(device_count_, 0);
    groups[*whole] = numgroups;
    predicted[*whole] = state.whole_seconds[*whole] > 0
                            ? state.whole_seconds[*whole]
                            : state.kernel_cost[*whole].predict(numgroups);
  } else {
    groups = round_to_groups(state.next_shares, numgroups);
    if (config_.adaptive) trim_small_slices(state, groups, numgroups);
    for (unsigned d = 0; d < device_count_; ++d)
      predicted[d] = state.busy_cost[d].predict(groups[d]);
  }
  return std::make_unique<StaticPlan>(groups, std::move(predicted), whole);
}

void SplitScheduler::trim_small_slices(const KeyState& state, std::vector<uint64_t>& groups,
                                       uint64_t numgroups) const {
  // Whole groups cannot express a share below one group: a slow device
  // rounded up to a group or two can become the bottleneck through its
  // launch overhead. Trim such small slices to what the cost model says fits
  // in the balanced makespan and give the rest to the biggest slice.
  constexpr double kSmallSlice = 0.01, kTolerance = 1.05;
  const double target = state.split_predicted;
  if (target <= 0) return;
  unsigned biggest = 0;
  for (unsigned d = 1; d < device_count_; ++d)
    if (groups[d] > groups[biggest]) biggest = d;
  for (unsigned d = 0; d < device_count_; ++d) {
    if (d == biggest || groups[d] == 0 || double(groups[d]) > kSmallSlice * double(numgroups))
      continue;
    const DeviceCostModel& cost = state.busy_cost[d];
    if (!cost.known()) continue;
    uint64_t fits = groups[d];
    while (fits > 0 && cost.predict(fits) > kTolerance * target) --fits;
    groups[biggest] += groups[d] - fits;
    groups[d] = fits;
  }
}

std::vector<double> SplitScheduler::per_group_times(const KeyState& state,
                                                    const std::vector<uint64_t>& groups,
                                                    const std::vector<double>& seconds) const {
  std::vector<double> f(device_count_, 0.0);
  for (unsigned d = 0; d < device_count_; ++d) {
    if (groups[d] > 0 && seconds[d] > 0)
      f[d] = seconds[d] / double(groups[d]);
    else
      f[d] = state.busy_cost[d].latest_per_group();
  }
  // Never measured: scale a measured device's time by the nominal powers.
  std::vector<double> scaled;
  for (unsigned d = 0; d < device_count_; ++d)
    if (f[d] > 0) scaled.push_back(f[d] * powers_[d]);
  if (scaled.empty()) return f;
  std::nth_element(scaled.begin(), scaled.begin() + long(scaled.size() / 2), scaled.end());
  double median = scaled[scaled.size() / 2];
  for (unsigned d = 0; d < device_count_; ++d)
    if (f[d] <= 0) f[d] = median / powers_[d];
  return f;
}

void SplitScheduler::report(const LaunchKey& key, const std::vector<ChunkTiming>& timings) {
  std::lock_guard lock(mutex_);
  KeyState& state = state_for(key);
  std::vector<uint64_t> groups(device_count_, 0);
  std::vector<double> busy(device_count_, 0.0), kernel(device_count_, 0.0);
  for (const ChunkTiming& timing : timings) {
    if (timing.chunk.device >= device_count_) continue;
    groups[timing.chunk.device] += timing.chunk.group_count;
    busy[timing.chunk.device] += timing.seconds + timing.transfer_seconds;
    kernel[timing.chunk.device] += timing.seconds;
  }
  uint64_t numgroups = 0;
  double makespan = 0, fastest = 0;
  unsigned used = 0;
  for (unsigned d = 0; d < device_count_; ++d) {
    numgroups += groups[d];
    makespan = std::max(makespan, busy[d]);
    if (groups[d] == 0) continue;
    fastest = used++ == 0 ? busy[d] : std::min(fastest, busy[d]);
  }
  const unsigned launch = state.launches++;
  if (numgroups == 0) return;

  if (state.planned_whole && used == 1 && groups[*state.planned_whole] == numgroups) {
    report_whole(key, state, makespan, launch);
    return;
  }

  double imbalance = makespan > 0 ? (makespan - fastest) / makespan : 0;
  state.split_launches++;
  state.split_seconds = makespan;
  state.split_balanced = imbalance <= WholePolicy::kBalanced;
  state.last_split_launch = launch;
  state.last_groups = groups;
  state.last_kernel = kernel;
  for (unsigned d = 0; d < device_count_; ++d) {
    state.busy_cost[d].add(groups[d], busy[d]);
    state.kernel_cost[d].add(groups[d], kernel[d]);
  }
  state.split_predicted = predicted_balanced(state, numgroups);
  if (state.whole_mode) {
    if (split_reference(state) < state.whole_seconds[*state.whole_mode]) {
      state.whole_mode.reset();
      state.whole_recheck = WholePolicy::kRecheckWholeFirst;
    } else {
      state.split_recheck =
          std::min(backoff(state.split_recheck, split_reference(state),
                           state.whole_seconds[*state.whole_mode]),
                   WholePolicy::kRecheckSplitMax);
    }
  }

  std::vector<double> x(device_count_);
  for (unsigned d = 0; d < device_count_; ++d) x[d] = double(groups[d]) / double(numgroups);
  unsigned bottleneck = 0;
  for (unsigned d = 1; d < device_count_; ++d)
    if (busy[d] > busy[bottleneck]) bottleneck = d;
  std::vector<double> proposal =
      normalized(state.solver->next(x, per_group_times(state, groups, busy)));
  if (config_.adaptive) {
    SplitLaunch seen;
    seen.x = x;
    seen.makespan = makespan;
    seen.imbalance = imbalance;
    seen.bottleneck = bottleneck;
    seen.band = OvershootPolicy::kTrigger;
    seen.numgroups = numgroups;
    proposal = state.guard.next(seen, std::move(proposal), state.solver.get());
  }
  state.next_shares = std::move(proposal);
  if (warm_start_) maybe_save(key, state, imbalance);
}

void SplitScheduler::report_whole(const LaunchKey& key, KeyState& state, double makespan, unsigned launch) {
  unsigned d = *state.planned_whole;
  state.whole_seconds[d] = makespan;
  state.whole_checked_at[d] = launch;
  bool better = state.split_seconds <= 0 || makespan < split_reference(state);
  bool changed = better != (state.whole_mode == d);
  state.whole_mode = better ? std::optional<unsigned>(d) : std::nullopt;
  if (changed) state.split_recheck = WholePolicy::kRecheckSplitFirst;
  if (!better)
    state.whole_recheck = changed ? WholePolicy::kRecheckWholeFirst
                                  : std::min(backoff(state.whole_recheck, makespan, split_reference(state)),
                                             WholePolicy::kRecheckWholeMax);
  if (changed && warm_start_) maybe_save(key, state, 0);
}

void SplitScheduler::maybe_save(const LaunchKey& key, KeyState& state, double imbalance) {
  constexpr double kBalanced = 0.05, kMoved = 0.02;
  constexpr long kMinLaunchesBetweenSaves = 4;
  StoredDecision decision{state.whole_mode, state.next_shares};
  bool mode_changed = !state.saved || state.saved->whole_device != decision.whole_device;
  if (!mode_changed) {
    if (decision.whole_device) return;
    if (imbalance > kBalanced) return;
    if (long(state.launches) < state.saved_at + kMinLaunchesBetweenSaves) return;
    double moved = 0;
    for (size_t d = 0; d < decision.shares.size(); ++d)
      moved = std::max(moved, std::fabs(decision.shares[d] - state.saved->shares[d]));
    if (moved < kMoved) return;
  } else if (!decision.whole_device && imbalance > kBalanced) {
    return;
  }
  if (warm_start_->save(key, decision)) {
    state.saved = decision;
    state.saved_at = long(state.launches);
  }
}

}  // namespace libsplit::sched
