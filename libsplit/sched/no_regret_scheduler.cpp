// NoRegretScheduler: its state per key, and the plan of each launch (the
// whole-vs-split choice, then the probes beside it).
#include "no_regret_state.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <tuple>

#include "plans.h"
#include "rounding.h"

namespace libsplit::sched {

namespace {

bool identical(const DeviceInfo& a, const DeviceInfo& b) {
  return a.name == b.name && a.compute_units == b.compute_units && a.clock_mhz == b.clock_mhz &&
         a.is_gpu == b.is_gpu && a.remote == b.remote;
}

}  // namespace

NoRegretScheduler::NoRegretScheduler(const std::vector<DeviceInfo>& devices,
                                     const SchedulerOptions& options)
    : devices_(devices),
      explore_budget_(std::max(0.0, options.explore_budget)),
      shared_cores_(options.host_devices_share_cores) {
  if (!options.warm_start_dir.empty()) warm_start_.emplace(options.warm_start_dir, devices);
}

std::optional<unsigned> NoRegretScheduler::host_helper(unsigned home) const {
  // Devices on the host's cores share them: a split between two of them, or
  // a probe of one beside the other's launch, only takes cores from the
  // app's launch (PoCL pthread + basic on 2 cores: 1.25-1.67x slower than
  // the app alone). Home if it is one of them, else the strongest.
  if (home < devices_.size() && devices_[home].on_host_cores) return home;
  std::optional<unsigned> best;
  auto power = [&](unsigned d) { return double(devices_[d].compute_units) * devices_[d].clock_mhz; };
  for (unsigned d = 0; d < devices_.size(); ++d)
    if (devices_[d].on_host_cores && (!best || power(d) > power(*best))) best = d;
  return best;
}

bool NoRegretScheduler::may_use_several_devices() const {
  if (!shared_cores_) return devices_.size() > 1;
  // Some home has a helper: a device off the host's cores beside it.
  unsigned off_host = 0;
  for (const DeviceInfo& device : devices_) off_host += !device.on_host_cores;
  return devices_.size() > 1 && off_host > 0;
}

NoRegretScheduler::~NoRegretScheduler() = default;

bool NoRegretScheduler::KeyLess::operator()(const LaunchKey& a, const LaunchKey& b) const {
  auto fields = [](const LaunchKey& k) {
    return std::tie(k.kernel, k.dims, k.global[0], k.global[1], k.global[2], k.local[0], k.local[1],
                    k.local[2], k.split_dim, k.home);
  };
  return fields(a) < fields(b);
}

NoRegretScheduler::KeyState& NoRegretScheduler::state_for(const LaunchKey& key,
                                                          uint64_t numgroups) {
  const unsigned n = unsigned(devices_.size());
  std::unique_ptr<KeyState>& slot = states_[key];
  if (slot) return *slot;
  slot = std::make_unique<KeyState>();
  KeyState& state = *slot;
  state.home = key.home < n ? key.home : 0;
  state.devices.resize(n);
  const std::optional<unsigned> host = host_helper(state.home);
  for (unsigned d = 0; d < n; ++d) {
    DeviceState& device = state.devices[d];
    device.excluded = d != state.home && shared_cores_ && devices_[d].on_host_cores && d != host;
    device.twin = d != state.home && !device.excluded && identical(devices_[d], devices_[state.home]);
  }
  state.whole_device = state.home;
  if (warm_start_ && numgroups > 0) {
    if (std::optional<StoredDecision> stored = warm_start_->load(key)) {
      // A stored decision replaces the exploration, not the verification:
      // the other devices' slices are probed at their stored sizes first.
      bool all_twins = true;
      for (unsigned d = 0; d < n; ++d) {
        uint64_t groups = stored->whole_device
                              ? (*stored->whole_device == d ? numgroups : 0)
                              : uint64_t(std::llround(stored->shares[d] * double(numgroups)));
        if (d != state.home && groups > 0) {
          state.devices[d].stored_probe = std::min(groups, numgroups);
          all_twins = all_twins && state.devices[d].twin;
        }
      }
      if (!stored->whole_device && all_twins) {
        state.split = true;  // identical devices: trust the stored split
        state.trusted_split = true;
        state.next_groups = round_to_groups(stored->shares, numgroups);
      }
      using Earlier = KeyState::Earlier;
      state.earlier = !stored->whole_device                    ? Earlier::split
                      : *stored->whole_device != state.home   ? Earlier::whole_elsewhere
                      : stored->split_lost && !retrying_lost_ ? Earlier::split_lost
                                                              : Earlier::whole_untried;
      state.saved = std::move(stored);
    }
  }
  return state;
}

void NoRegretScheduler::set_ready(const std::vector<bool>& ready) {
  std::lock_guard lock(mutex_);
  if (ready == ready_) return;
  ready_ = ready;
  ++ready_generation_;
}

void NoRegretScheduler::sync_ready(KeyState& state) {
  state.ready_generation = ready_generation_;
  bool joined = false, lost = false;
  for (unsigned d = 0; d < state.devices.size(); ++d) {
    DeviceState& device = state.devices[d];
    const bool unready = d != state.home && d < ready_.size() && !ready_[d];
    joined = joined || (device.unready && !unready && device.twin);
    lost = lost || (unready && state.split && d < state.next_groups.size() && state.next_groups[d] > 0);
    device.unready = unready;
  }
  // A split waiting for a device, or one a newly ready twin may join:
  // planned again (the even split over the ready twins first). A twin split
  // that lost stays given up: more twins would not win it back.
  state.regrown = joined && state.split && !lost;
  state.fallback_groups = state.regrown ? state.next_groups : std::vector<uint64_t>{};
  if (lost) state.stopped_why = "a device of its split is not ready (opening, or its program building)";
  if (lost || state.regrown) {
    state.split = false;
    state.twins_tried = false;
    state.whole_device = state.home;
    restart_balancing(state);
  }
}

void NoRegretScheduler::restart_balancing(KeyState& state) {
  state.solver.reset();
  state.active.clear();
  state.guard.restart();
}

void NoRegretScheduler::finish_split_plan(KeyState& state, std::vector<uint64_t> groups,
                                          uint64_t numgroups) {
  unsigned used = 0, last = state.home;
  for (unsigned d = 0; d < groups.size(); ++d)
    if (groups[d] > 0) ++used, last = d;
  if (used <= 1) {
    state.split = false;
    state.whole_device = used == 1 ? last : state.home;
    if (used == 0) groups[state.home] = numgroups;
  } else {
    state.split = true;
    state.stopped_why.clear();
  }
  state.next_groups = std::move(groups);
}

std::unique_ptr<LaunchPlan> NoRegretScheduler::plan(const LaunchKey& key, uint64_t numgroups) {
  std::lock_guard lock(mutex_);
  KeyState& state = state_for(key, numgroups);
  if (state.ready_generation != ready_generation_) sync_ready(state);
  const unsigned n = unsigned(devices_.size());
  const long launch = state.launches++;
  state.numgroups = numgroups;
  std::vector<uint64_t> groups(n, 0);

  if (n == 1 || numgroups == 0) {
    groups[0] = numgroups;
    return std::make_unique<StaticPlan>(groups, std::vector<double>(n, 0.0), 0u);
  }
  const bool halves = count_toward_opening(state);
  choose_mode(state, numgroups, launch);
  std::unique_ptr<StaticPlan> plan = plan_for_mode(state, numgroups, launch, groups);
  const std::optional<unsigned> whole =
      state.split ? std::nullopt : std::optional<unsigned>(state.whole_device);
  bool budget_spent = false;
  std::vector<Chunk> probes = plan_probes(state, numgroups, launch, groups, &budget_spent);
  if (whole && probes.empty() && launch % P::kMeasureEvery != 0) {
    const DeviceState& device = state.devices[*whole];
    // Every launch is measured where a load step would change the plan at
    // once: a long launch with another device ready to take work. With none
    // ready (not open yet, or never: ep on one H100), an event per launch
    // only costs (on NVIDIA ~10 us of host time a launch, 1 % of ep).
    bool alone = true;
    for (unsigned d = 0; d < n; ++d)
      alone = alone && (d == *whole || state.devices[d].unready || state.devices[d].excluded);
    bool settled = device.whole_seconds > 0 && (device.whole_seconds < P::kMeasureAlways || alone) &&
                   device.kernel.noise_samples() >= LinearCostFit::kNoiseSamples;
    for (const DeviceState& other : state.devices) settled = settled && !other.probing;
    if (settled) {
      plan->set_wants_report(false);
      state.total_makespan += device.whole_seconds;  // the budget grows with the run
    }
  }
  if (!whole && probes.empty()) sample_settled_split(state, *plan, groups, launch);
  if (whole && !state.stopped_why.empty()) plan->set_why_whole(why_whole(state, launch));
  if (!probes.empty())
    plan->set_probe_staging_room(
        std::max(P::kMinStagingRoom, allowed_budget(state) - state.spent));
  plan->set_probes(std::move(probes));
  plan->set_budget_spent(budget_spent);
  if (halves && !state.split && state.whole_device == state.home && numgroups >= 2) {
    plan->set_halves_on_home(true);
    plan->set_wants_report(true);
  } else if (halves) {
    state.halves = KeyState::Halves::untested;
  }
  return plan;
}

std::string NoRegretScheduler::why_whole(const KeyState& state, long launch) const {
  std::string why = state.stopped_why;
  if (state.indivisible) return why;  // for good
  if (launch < state.split_blocked_until)
    why += "; no split before its launch " + std::to_string(state.split_blocked_until + 1);
  else if (explore_budget_ > 0 && state.split_regret > 0 && state.spent + state.split_regret >= allowed_budget(state))
    why += "; its splits' net loss spent the exploration budget";
  return why;
}

// Reading a split's times costs the app's thread driver calls per
// sub-kernel (on 4 H100 23 us a launch: status, start, end, release), more
// than a short launch can spare; once its plan has stopped changing, a load
// step still shows within kMeasureEvery launches. A plan within
// kSettledMove of the groups of the one that started the run of same
// plans is the same: twins rebalance by their jitter (ep on 2 H200: 2050 /
// 2046 then 2041 / 2055 of 4096 groups), moves owner computes does not
// execute (it kept 2048 / 2048), which left every launch measured.
void NoRegretScheduler::sample_settled_split(KeyState& state, StaticPlan& plan, const std::vector<uint64_t>& groups,
                                             long launch) {
  uint64_t total = 0, moved = 0;
  bool same = groups.size() == state.last_split_groups.size();
  for (size_t d = 0; same && d < groups.size(); ++d) {
    const uint64_t was = state.last_split_groups[d];
    same = (groups[d] > 0) == (was > 0);  // the same devices
    total += groups[d];
    moved += groups[d] > was ? groups[d] - was : 0;
  }
  same = same && double(moved) <= P::kSettledMove * double(total);
  state.same_split_plans = same ? state.same_split_plans + 1 : 0;
  if (!same) state.last_split_groups = groups;
  if (launch % P::kMeasureEvery == 0 || state.same_split_plans < P::kMeasureEvery || state.trusted_split ||
      state.regrown)
    return;
  double makespan = 0;
  for (unsigned d = 0; d < groups.size(); ++d) {
    if (!groups[d]) continue;
    const DeviceState& device = state.devices[d];
    if (device.probing || device.kernel.noise_samples() < LinearCostFit::kNoiseSamples) return;
    makespan = std::max(makespan, plan.predicted_seconds(d));
  }
  if (!(makespan > 0) || makespan >= P::kMeasureAlways) return;
  plan.set_wants_report(false);
  ++state.unmeasured_splits;
  state.total_makespan += makespan;  // the budget grows with the run
}

void NoRegretScheduler::choose_mode(KeyState& state, uint64_t numgroups, long launch) {
  const unsigned n = unsigned(devices_.size());
  const DeviceState& home = state.devices[state.home];
  std::vector<double> twin_shares(n, 0.0);
  unsigned twins = 0;
  for (unsigned d = 0; d < n; ++d)
    if (d == state.home || (state.devices[d].twin && !state.devices[d].unready)) twin_shares[d] = 1, ++twins;
  if (!state.split && !home.kernel.known()) {
    // First launch: home alone, measured: what any split must beat, and
    // what tells the runtime whether a split's data movement pays back.
    state.split = false;
    state.whole_device = state.home;
  } else if (!state.split && twins > 1 && !state.twins_tried && launch >= state.split_blocked_until) {
    // Then evenly with devices identical to home (a safe prior for the
    // kernel; the runtime checks what moving the data costs).
    state.twins_tried = true;
    state.trusted_split = true;
    finish_split_plan(state, round_to_groups(twin_shares, numgroups), numgroups);
  } else if (!state.split && launch >= state.split_blocked_until &&
             (explore_budget_ <= 0 ||
              state.spent + std::max(0.0, state.split_regret) < allowed_budget(state))) {
    auto [whole_device, whole_seconds] = best_whole(state, numgroups);
    state.whole_device = whole_device;
    // A split is modelled only when the devices could cover the launch
    // faster than whole (the usual answer on a GPU node is no).
    const bool may = split_may_beat(state, numgroups, whole_seconds / (1 + P::kSplitMargin));
    auto [split, makespan] = may ? model_split(state, numgroups, true, true)
                                 : std::pair{std::vector<uint64_t>(n, 0), double(INFINITY)};
    unsigned used = unsigned(std::count_if(split.begin(), split.end(), [](uint64_t g) { return g; }));
    if (used > 1 && makespan * (1 + P::kSplitMargin) < whole_seconds) {
      restart_balancing(state);
      finish_split_plan(state, std::move(split), numgroups);
    }
  } else if (!state.split) {
    state.whole_device = best_whole(state, numgroups).first;
  }
}

std::unique_ptr<StaticPlan> NoRegretScheduler::plan_for_mode(KeyState& state, uint64_t numgroups, long launch,
                                                             std::vector<uint64_t>& groups) {
  const unsigned n = unsigned(devices_.size());
  std::vector<double> predicted(n, 0.0);
  std::optional<unsigned> whole;
  if (state.split) {
    groups = state.next_groups;
    for (unsigned d = 0; d < n; ++d) predicted[d] = predict_busy(state, d, groups[d], false);
  } else {
    whole = state.whole_device;
    groups[*whole] = numgroups;
    predicted[*whole] = state.devices[*whole].kernel.predict(numgroups);
  }
  auto plan = std::make_unique<StaticPlan>(groups, std::move(predicted), whole);
  if (!whole) {
    // One-off data movement this split may cost: what it gains over whole
    // in as many launches as the key has run (at least a few). The gain is
    // the slowest device's kernel alone: the moves are what the allowance is
    // for. Counted in as well (from the transfers of the key's earlier split
    // launches), 3mm's gathers for its third product made every split look
    // no faster than whole, and the runtime declined the next split for
    // moving 8 MB (2 H100, session 9 calls 9-11).
    double split_makespan = 0;
    for (unsigned d = 0; d < n; ++d)
      if (groups[d]) split_makespan = std::max(split_makespan, state.devices[d].kernel.predict(groups[d]));
    const double whole_seconds = best_whole(state, numgroups).second;
    const double payback = std::max(P::kStagingPaybackLaunches, double(launch));
    if (whole_seconds > 0 && split_makespan > 0)
      plan->set_staging_allowance(payback * std::max(0.0, whole_seconds - split_makespan));
  }
  return plan;
}

void NoRegretScheduler::block_split(KeyState& state, std::string why) {
  state.split = false;
  state.split_stopped = true;
  state.stopped_why = std::move(why);
  state.trusted_split = false;
  state.split_failures = std::min(state.split_failures + 1, 6u);
  state.split_blocked_until = state.launches + std::min<long>(long(1) << state.split_failures, P::kBlockMax);
}

void NoRegretScheduler::split_declined(const LaunchKey& key) {
  std::lock_guard lock(mutex_);
  KeyState& state = state_for(key, 0);
  split_declined_ = true;
  block_split(state, "the runtime declined its split (data movement beyond what it would pay back)");
  state.whole_device = state.home;
  // Twins are tried again after the block: the allowance grows with the
  // launches the key has run.
  state.twins_tried = false;
}

void NoRegretScheduler::maybe_save(const LaunchKey& key, KeyState& state, double imbalance) {
  constexpr double kBalanced = 0.05, kMoved = 0.02;
  constexpr long kMinLaunchesBetweenSaves = 4;
  const size_t n = devices_.size();
  StoredDecision decision;
  decision.shares.assign(n, 0.0);
  if (state.split) {
    uint64_t total = 0;
    for (uint64_t g : state.next_groups) total += g;
    for (size_t d = 0; d < n && total > 0; ++d)
      decision.shares[d] = double(state.next_groups[d]) / double(total);
  } else {
    decision.whole_device = state.whole_device;
    decision.shares[state.whole_device] = 1;
    // A run that never tried the split (it opened no device for a key
    // stored lost) keeps the earlier verdict: forgetting it made every
    // other run of 3mm on 4 H100 open the GPUs again (+250 ms).
    decision.split_lost =
        state.split_failures > 0 || state.indivisible || state.earlier == KeyState::Earlier::split_lost;
  }
  bool mode_changed = !state.saved || state.saved->whole_device != decision.whole_device ||
                      state.saved->split_lost != decision.split_lost;
  if (!mode_changed) {
    if (decision.whole_device) return;
    if (imbalance > kBalanced) return;
    if (state.launches < state.saved_at + kMinLaunchesBetweenSaves) return;
    double moved = 0;
    for (size_t d = 0; d < n; ++d)
      moved = std::max(moved, std::fabs(decision.shares[d] - state.saved->shares[d]));
    if (moved < kMoved) return;
  } else if (!decision.whole_device && imbalance > kBalanced) {
    return;
  }
  if (warm_start_->save(key, decision)) {
    state.saved = decision;
    state.saved_at = state.launches;
  }
}

}  // namespace libsplit::sched
