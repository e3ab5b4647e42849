// NoRegretScheduler's measurements of real launches: whole launches, split
// launches judged against whole (back to whole when they lose), load steps
// told from noise, and the split rebalanced by the solver behind the cliff
// guard (cliff_guard.h).
#include "no_regret_state.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "rounding.h"

namespace libsplit::sched {

using P = NoRegretPolicy;

// The cliff guard (cliff_guard.h) as NoRegretPolicy sets it: a suspected
// cliff is verified at the old split first (a load step that came with the
// move looks the same), held while each device's times per group hold.
CliffGuardPolicy no_regret_cliff_guard_policy() {
  // A cliff needs the bottleneck's slice to have grown by more than this.
  constexpr double kCliffShareGrowth = 0.05;
  CliffGuardPolicy policy;
  policy.verify_first = true;
  policy.min_share_growth = kCliffShareGrowth;
  policy.max_steps = P::kCliffSteps;
  policy.cliff_imbalance = P::kCliffImbalance;
  policy.hold_max = P::kHoldMax;
  policy.per_device_hold = true;
  return policy;
}

namespace {

// (slowest - fastest) / slowest of the busy seconds f * x of a split.
double imbalance_of(const std::vector<double>& x, const std::vector<double>& f) {
  double fastest = INFINITY, slowest = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    fastest = std::min(fastest, f[i] * x[i]);
    slowest = std::max(slowest, f[i] * x[i]);
  }
  return slowest > 0 ? (slowest - fastest) / slowest : 0;
}

// The solver's step, with no share growing beyond kMaxGrowth times its
// current share or kMaxShareStep more: per-group times speak for the slices
// measured, and work need not be the same over the groups (a step from the
// cheap first rows of a Mandelbrot image gave a device twice slower than
// home 95 % of the launch). The excess goes to the devices not limited.
std::vector<double> limit_growth(const std::vector<double>& x, std::vector<double> proposal) {
  constexpr double kMaxGrowth = 2, kMaxShareStep = 0.25;
  double excess = 0, free_total = 0;
  std::vector<bool> limited(x.size(), false);
  for (size_t i = 0; i < x.size(); ++i) {
    const double most = std::max(kMaxGrowth * x[i], x[i] + kMaxShareStep);
    if (proposal[i] > most) {
      excess += proposal[i] - most;
      proposal[i] = most;
      limited[i] = true;
    } else {
      free_total += proposal[i];
    }
  }
  if (excess <= 0 || free_total <= 0) return proposal;
  for (size_t i = 0; i < x.size(); ++i)
    if (!limited[i]) proposal[i] += excess * proposal[i] / free_total;
  return proposal;
}

}  // namespace

// What the app waits for a split launch beyond what it waits for a whole
// one: the devices' idle time before it beyond home's before a whole launch
// (mandelbrot medium on 2 H100, clFinish after each 0.18 ms launch: the
// split's halves took 0.09 ms, yet the loop ran 1.10-1.14x slower than
// natively). The least idle device's: the others also waited for the last
// one of the previous launch, an imbalance the makespan counts already.
// Judged, not balanced: the idle time is the host's, the same whichever
// device gets more groups.
double NoRegretScheduler::added_idle(const LaunchTimes& t, double whole_idle) {
  double least_idle = INFINITY;
  for (size_t d = 0; d < t.groups.size(); ++d)
    if (t.groups[d] > 0 && t.idle[d] >= 0) least_idle = std::min(least_idle, t.idle[d]);
  return whole_idle >= 0 && std::isfinite(least_idle) ? std::max(0.0, least_idle - whole_idle) : 0.0;
}

void NoRegretScheduler::report(const LaunchKey& key, const std::vector<ChunkTiming>& timings) {
  std::lock_guard lock(mutex_);
  KeyState& state = state_for(key, 0);
  if (judged_halves(key, state, timings)) return;
  const unsigned n = unsigned(devices_.size());
  LaunchTimes t(n);
  for (const ChunkTiming& timing : timings) {
    const unsigned d = timing.chunk.device;
    if (d >= n) continue;
    if (t.groups[d] == 0) t.idle[d] = timing.idle_before, t.first[d] = timing.chunk.first_group;
    ++t.chunks[d];
    t.groups[d] += timing.chunk.group_count;
    t.kernel[d] += timing.seconds;
    t.transfer[d] += timing.transfer_seconds;
    t.busy[d] += timing.seconds + timing.transfer_seconds;
  }
  if (state.regrown && stale_after_growth(state, t)) {
    // Planned before a device joined: its samples count, not its verdict
    // (it would rebalance the split it grew from).
    uint64_t groups = 0;
    for (uint64_t g : t.groups) groups += g;
    track_load_steps(state, t, groups);
    return;
  }
  charge_first_staging(state, t, key.role);
  uint64_t numgroups = 0;
  unsigned used = 0, only = 0;
  double makespan = 0, fastest = INFINITY;
  for (unsigned d = 0; d < n; ++d) {
    numgroups += t.groups[d];
    if (t.groups[d] == 0) continue;
    ++used;
    only = d;
    makespan = std::max(makespan, t.busy[d]);
    fastest = std::min(fastest, t.busy[d]);
  }
  if (numgroups == 0 || n == 1) return;
  if (state.first_makespan <= 0) state.first_makespan = makespan;
  state.total_makespan += makespan;

  if (used == 1) {
    report_whole(key, state, only, numgroups, t.kernel[only], t.transfer[only], t.idle[only]);
    return;
  }
  const double judged = makespan + added_idle(t, state.whole_idle);
  // The whole launch as measured before this split's samples: a slice that
  // costs more per group than the whole launch can look like a load step and
  // make the whole measurement stale below, while it is what a split of a
  // kernel whose groups run in one wave looks like.
  const double whole_before = best_whole(state, numgroups).second;
  const double band = track_load_steps(state, t, numgroups);
  const bool grown = std::exchange(state.regrown, false);
  std::vector<uint64_t> fallback = std::move(state.fallback_groups);
  state.fallback_groups.clear();
  const unsigned needed = count_split_report(state, t);
  if (split_lost(key, state, judged, whole_before, band, numgroups)) {
    if (grown && !fallback.empty()) {
      // The split it grew from had won: back to it, not to whole.
      restart_balancing(state);
      finish_split_plan(state, std::move(fallback), numgroups);
    }
    return;
  }
  state.split_failures = 0;
  state.split_gain += std::max(0.0, whole_before - judged);
  state.gain_by_groups[needed] += std::max(0.0, whole_before - judged);
  if (wanted_.load(std::memory_order_relaxed) < kAllGroups) {
    bool all_ready_used = true;
    for (unsigned d = 0; d < n; ++d) {
      const DeviceState& device = state.devices[d];
      all_ready_used = all_ready_used && (t.groups[d] > 0 || device.excluded || device.unready);
    }
    if (all_ready_used) want(kAllGroups);
  }
  rebalance(state, t, numgroups, makespan, band);
  if (warm_start_) maybe_save(key, state, (makespan - fastest) / makespan);
}

// Together, halves of a kernel whose time follows its work take what the
// whole launch takes; those of a kernel that did not fill the device take
// it each (its groups ran in one wave either way). False where `timings`
// are not the halves asked for.
bool NoRegretScheduler::judged_halves(const LaunchKey& key, KeyState& state, const std::vector<ChunkTiming>& timings) {
  if (state.halves != KeyState::Halves::asked || timings.size() != 2 || timings[0].chunk.device != state.home ||
      timings[1].chunk.device != state.home)
    return false;
  state.halves = KeyState::Halves::tested;
  const ChunkTiming &first = timings[0], &second = timings[1];
  const DeviceState& home = state.devices[state.home];
  const double whole = home.whole_seconds - home.whole_moved;
  if (!(first.seconds > 0 && second.seconds > 0 && whole > 0)) return true;
  if (first.seconds + second.seconds < P::kIndivisible * whole) return true;
  state.indivisible = true;
  run_for_opening_ = std::max(0.0, run_for_opening_ - state.counted_for_opening);
  state.counted_for_opening = 0;
  state.split = false;
  state.whole_device = state.home;
  state.split_blocked_until = std::numeric_limits<long>::max();
  char why[160];
  snprintf(why, sizeof why, "its halves on device %u took %.3f ms and %.3f ms against %.3f ms whole (one wave)",
           state.home, first.seconds * 1e3, second.seconds * 1e3, whole * 1e3);
  state.stopped_why = why;
  state.split_stopped = true;
  if (warm_start_) maybe_save(key, state, 0);
  return true;
}

void NoRegretScheduler::charge_first_staging(KeyState& state, LaunchTimes& t, uint64_t role) {
  const unsigned n = unsigned(devices_.size());
  unsigned devices_used = 0;
  uint64_t launch_groups = 0;
  for (unsigned d = 0; d < n; ++d) devices_used += t.groups[d] > 0, launch_groups += t.groups[d];
  // A device's first split launch stages what it will keep (inputs nobody
  // rewrites: matmul's B, 131 MB through the host on 2 H200, 20 ms next to
  // a 10 ms slice): judged with it, the split lost to whole, went back for
  // three launches and restarted unbalanced. Where the split's gain pays
  // that transfer back within a few launches (as many as the key has run),
  // it is charged to exploration and the split judged from the next launch
  // on, whose transfers recur. Where it does not (a 0.15 ms stencil that
  // staged 151 MB), it counts: the split goes back to whole.
  // So does the first split launch of each role of the key (LaunchKey::role):
  // 3mm's F = C.D first staged half of C and D (33 MB) on the second GPU at
  // the key's second split launch; taken for a recurring move, it made the
  // split look slower than whole and the runtime declined every later split
  // of the key for its moves (2 H100, session 9 call 9).
  if (devices_used <= 1) return;
  // At most kMaxRoles roles are new once each: a key with more is judged
  // with the moves of its later ones.
  const bool new_role = state.split_roles.size() < P::kMaxRoles &&
                        std::find(state.split_roles.begin(), state.split_roles.end(), role) == state.split_roles.end();
  if (new_role) state.split_roles.push_back(role);
  std::vector<Chunk> slices;
  for (unsigned d = 0; d < n; ++d)
    if (t.groups[d] > 0) slices.push_back({d, t.first[d], t.groups[d]});
  // Slices far from the last split's (after whole, or a new partition) move
  // what they will keep once too: mandelbrot over 4 H100 gave up every split
  // it tried after a whole stretch, each judged with the 50 MB a device
  // fetched for it (6.6 ms against 4.3 ms whole, where the split runs 2.0 ms
  // a launch). Charged only within the exploration budget, and not for the
  // few groups a rebalancing step moves: those steps come at every launch.
  uint64_t kept = 0;
  for (const Chunk& now : slices) {
    uint64_t held = 0;
    for (const Chunk& before : state.reported_split)
      if (now.device == before.device)
        held += std::max<int64_t>(0, int64_t(std::min(now.first_group + now.group_count,
                                                      before.first_group + before.group_count)) -
                                         int64_t(std::max(now.first_group, before.first_group)));
    t.moved[now.device] = now.group_count - std::min(held, now.group_count);
    kept += held;
  }
  const bool moved_slices = double(launch_groups - std::min(kept, launch_groups)) >= P::kMovedSlices * double(launch_groups);
  state.reported_split = std::move(slices);
  std::vector<double> staging(n, 0.0);
  double first_staging = 0, makespan_after = 0;
  bool first_ever = false;
  for (unsigned d = 0; d < n; ++d) {
    if (t.groups[d] == 0) continue;
    // The first split launch after a device joined moves data between all
    // of them (the shares changed): one-off too.
    const bool first = state.devices[d].split_launches++ == 0 || state.regrown || new_role;
    first_ever = first_ever || first;
    if (first || moved_slices) staging[d] = t.transfer[d];
    first_staging = std::max(first_staging, staging[d]);
    makespan_after = std::max(makespan_after, t.busy[d] - staging[d]);
  }
  // Whole not measured yet (twins split from the first launch): home's
  // time per group in this launch, for all of them.
  double whole = best_whole(state, launch_groups).second;
  if (!(whole > 0) && t.groups[state.home] > 0)
    whole = t.kernel[state.home] / double(t.groups[state.home]) * double(launch_groups);
  const double gain = whole - makespan_after;
  const double payback = std::max(P::kStagingPaybackLaunches, double(state.launches));
  const bool within_budget = first_ever || state.spent + first_staging <= allowed_budget(state);
  if (first_staging > 0 && first_staging <= payback * gain && within_budget) {
    for (unsigned d = 0; d < n; ++d) t.busy[d] -= staging[d], t.transfer[d] -= staging[d];
    state.spent += first_staging;
  }
}

bool NoRegretScheduler::stale_after_growth(const KeyState& state, const LaunchTimes& t) const {
  unsigned used = 0;
  bool differs = false;
  for (unsigned d = 0; d < t.groups.size(); ++d) {
    const bool planned = d < state.next_groups.size() && state.next_groups[d] > 0;
    used += t.groups[d] > 0;
    differs = differs || (t.groups[d] > 0) != planned;
  }
  return used > 1 && differs;
}

// A whole launch costs what it moves in as well, where that recurs: 2mm
// over 4 GPUs + CPU, once mm_ab split and mm_tc ran whole, each whole mm_tc
// first fetched the half of its input the other GPU had just written (3.1
// ms kernel + 2.0 ms); judged by its kernel alone, whole looked the cheaper
// and mm_tc never split again. A move seen once (the gather after a split
// ended) does not count: the lesser of the last two launches' moves.
void NoRegretScheduler::report_whole(const LaunchKey& key, KeyState& state, unsigned device_index,
                                     uint64_t numgroups, double kernel_seconds, double transfer_seconds,
                                     double idle_before) {
  if (device_index == state.home && idle_before >= 0)
    state.whole_idle = state.whole_idle < 0 ? idle_before : 0.5 * (state.whole_idle + idle_before);
  state.reported_split.clear();
  state.role_excess.clear();
  DeviceState& device = state.devices[device_index];
  device.kernel.add(numgroups, kernel_seconds);
  const double recurring = std::min(transfer_seconds, device.last_whole_transfer);
  device.last_whole_transfer = transfer_seconds;
  const double seconds = kernel_seconds + std::max(0.0, recurring);
  constexpr double kSmoothing = 0.5;
  const bool smooth = device.whole_seconds > 0 && !device.kernel.jumped();
  device.whole_seconds = smooth ? (1 - kSmoothing) * device.whole_seconds + kSmoothing * seconds : seconds;
  device.whole_moved = smooth ? (1 - kSmoothing) * device.whole_moved + kSmoothing * std::max(0.0, recurring)
                              : std::max(0.0, recurring);
  // Home got slower or faster: re-check the others sooner.
  if (device_index == state.home && device.kernel.jumped()) reset_probe_backoff(state);
  if (warm_start_) maybe_save(key, state, 0);
}

double NoRegretScheduler::track_load_steps(KeyState& state, const LaunchTimes& t, uint64_t numgroups) {
  const unsigned n = unsigned(devices_.size());
  double sigma = 0;
  for (unsigned d = 0; d < n; ++d) {
    if (t.groups[d] == 0) continue;
    DeviceState& device = state.devices[d];
    device.kernel.add(t.groups[d], t.kernel[d]);
    if (t.transfer[d] > 0) device.transfer.add(t.groups[d], t.transfer[d]);
    if (device.kernel.jumped()) {
      reset_probe_backoff(state);
      // The whole measurement is stale only if the device got slower: a
      // slice cheaper per group than the whole launch is what a cliff (or
      // a lighter load) looks like, and whole has not become any faster.
      const double per_group_whole = device.whole_seconds / double(numgroups);
      const double per_group_slice = t.kernel[d] / double(t.groups[d]);
      if (per_group_slice > (1 + P::kSigmas * device.kernel.noise_sigma()) * per_group_whole)
        device.whole_seconds = 0;
    }
    sigma = std::max(sigma, device.kernel.noise_sigma());
  }
  return P::kSigmas * sigma + P::kGoBackSlack;
}

// Whether the latest split launch of each of the key's roles (this one's
// `excess` over whole included) together took no more than `slack` per role
// beyond whole. False for a key seen in one role: a loss is a loss.
bool NoRegretScheduler::cycle_gains(KeyState& state, uint64_t role, double excess, double slack) {
  std::vector<std::pair<uint64_t, double>>& roles = state.role_excess;
  auto it = std::find_if(roles.begin(), roles.end(), [role](const auto& r) { return r.first == role; });
  if (it != roles.end()) {
    it->second = excess;
  } else {
    if (roles.size() == P::kMaxRoles) roles.erase(roles.begin());
    roles.emplace_back(role, excess);
  }
  if (roles.size() < 2) return false;
  double sum = 0;
  for (const auto& r : roles) sum += r.second;
  return sum <= slack * double(roles.size());
}

bool NoRegretScheduler::split_lost(const LaunchKey& key, KeyState& state, double makespan,
                                   double whole_before, double band, uint64_t numgroups) {
  // Slower than whole (beyond noise): back to whole at once, unless the
  // cycle of its roles gains (cycle_gains).
  auto [whole_device, whole_seconds] = best_whole(state, numgroups);
  // Splitting is exploration too: its net loss against whole (gains credit
  // it, up to the budget) blocks new splits once it exceeds the budget, so
  // that work whose slices cost differently from launch to launch (data-
  // dependent) stops being split, while a split that paid off can survive
  // a load step.
  state.split_regret = std::max(state.split_regret + makespan - whole_seconds,
                                -allowed_budget(state));
  // A split taken on trust (twins, a stored decision) must show a gain at
  // its first judgment, not merely no loss beyond noise: on 2 H200 nbody's
  // half launches took as long as the whole one (3.58 vs 3.53 ms, the
  // groups run in one wave either way) and the split stayed, 1.13x slower
  // in the app's time (each split launch is synchronous for the host).
  const bool unproven = state.trusted_split && whole_before > 0 &&
                        makespan * (1 + P::kSplitMargin) > std::min(whole_seconds, whole_before);
  state.trusted_split = false;
  const bool cycle_gained = cycle_gains(state, key.role, makespan - whole_seconds, band * whole_seconds);
  const bool lost = makespan > (1 + band) * whole_seconds && !cycle_gained;
  if (unproven || lost) {
    state.role_excess.clear();
    const double against = unproven ? std::min(whole_seconds, whole_before) : whole_seconds;
    char why[160];
    snprintf(why, sizeof why, "its split %s: %.3f ms against %.3f ms whole", unproven ? "showed no gain" : "lost",
             makespan * 1e3, against * 1e3);
    block_split(state, why);
    state.whole_device = whole_device;
    if (warm_start_) maybe_save(key, state, 0);
    return true;
  }
  return false;
}

// How far off each model's prediction of this launch's times is, before
// either learns from it: the profile's, and the solvers' (each device's time
// per group as at its last launch).
void NoRegretScheduler::score_models(KeyState& state, const LaunchTimes& t, const std::vector<unsigned>& active) {
  double profile_error = 0, flat_error = 0;
  for (unsigned d : active) {
    const double measured = t.busy[d], speed = state.seconds_per_work[d], per_group = state.last_busy_per_group[d];
    if (!(measured > 0 && speed > 0 && per_group > 0 && state.profile.known())) return;
    const double profiled = speed * state.profile.work(t.first[d], t.groups[d]) + t.transfer[d];
    profile_error = std::max(profile_error, std::fabs(profiled / measured - 1));
    flat_error = std::max(flat_error, std::fabs(per_group * double(t.groups[d]) / measured - 1));
  }
  auto smooth = [](double& error, double now) { error = error < 0 ? now : 0.5 * (error + now); };
  smooth(state.profile_error, profile_error);
  smooth(state.flat_error, flat_error);
}

// A device's time on its slice is its speed (seconds per unit of work) times
// the slice's work: one equation, two unknowns. Speeds are taken as fixed
// (home and its twins 1, another device priced once, at its first slice, by
// the work its neighbours measured there), and every time teaches the work of
// its slice. Where that is wrong (a load step, work moving along the groups
// as N-body's masses do) the profile predicts no better than the solvers,
// whose case it is: the profile's split is taken only where it predicts the
// launches clearly better (a fixed irregular shape, Mandelbrot's).
std::vector<double> NoRegretScheduler::balance_on_profile(KeyState& state, const LaunchTimes& t,
                                                          const std::vector<unsigned>& active,
                                                          uint64_t numgroups, double band) const {
  const unsigned n = unsigned(devices_.size());
  WorkProfile& profile = state.profile;
  if (profile.numgroups() != numgroups) {
    profile.reset(numgroups);
    state.seconds_per_work.assign(n, 0.0);
    state.last_busy_per_group.assign(n, 0.0);
    state.profile_error = state.flat_error = -1;
    state.on_profile = false;
  }
  std::vector<double>& speed = state.seconds_per_work;
  for (unsigned d : active) {
    if (t.chunks[d] != 1) return {};  // a slice in pieces: no position to learn from
    if (speed[d] == 0 && (d == state.home || state.devices[d].twin)) speed[d] = 1;
  }
  score_models(state, t, active);
  // Known devices tell the work of their slices; a device new to the split
  // is then priced by the work its neighbours measured there.
  for (bool known : {true, false})
    for (unsigned d : active) {
      if ((speed[d] > 0) != known) continue;
      if (!known) {
        const double work = profile.work(t.first[d], t.groups[d]);
        speed[d] = work > 0 ? t.kernel[d] / work : 1;
      }
      profile.learn(t.first[d], t.groups[d], t.kernel[d] / speed[d]);
      state.last_busy_per_group[d] = t.busy[d] / double(t.groups[d]);
    }
  // Once taken, the profile stays until it predicts clearly worse: with the
  // split kept (owner computes keeps a partition while a change would not
  // pay its moves back) both predict the same times, and a solver step from
  // there restarted the oscillation (mandelbrot over 4 H100, session 8 call 1).
  const double floor = std::max(band, P::kProfileMinError);
  if (state.on_profile ? state.profile_error > floor && 2 * state.flat_error < state.profile_error
                       : state.flat_error > floor && 2 * state.profile_error < state.flat_error)
    state.on_profile = !state.on_profile;
  if (!state.on_profile) return {};
  std::vector<double> per_work(n, 0.0), per_group(n, 0.0);
  for (unsigned d : active) per_work[d] = speed[d], per_group[d] = t.transfer[d] / double(t.groups[d]);
  const std::vector<uint64_t> groups = profile.balance(per_work, per_group);
  std::vector<double> shares;
  for (unsigned d : active) shares.push_back(double(groups[d]) / double(numgroups));
  return shares;
}

// A device's busy seconds as the solvers balance them: its transfers where
// they recur, not the one-off moves of groups new to its slice. Counted, the
// moves of one rebalancing step made the device that received groups look
// slower, the next step gave them back, and the split swapped a few groups
// back and forth at every launch, paying their moves each time.
double NoRegretScheduler::balanced_busy(KeyState& state, const LaunchTimes& t, unsigned d) {
  if (state.recurring_transfer.size() != t.groups.size()) state.recurring_transfer.assign(t.groups.size(), 0.0);
  double& per_group = state.recurring_transfer[d];
  if (t.moved[d] == 0) per_group = t.transfer[d] / double(t.groups[d]);
  return t.kernel[d] + per_group * double(t.groups[d]);
}

void NoRegretScheduler::rebalance(KeyState& state, const LaunchTimes& t, uint64_t numgroups,
                                  double makespan, double band) {
  const unsigned n = unsigned(devices_.size());
  // Balance the devices of this split with the solver.
  std::vector<unsigned> active;
  for (unsigned d = 0; d < n; ++d)
    if (t.groups[d] > 0) active.push_back(d);
  if (active != state.active || !state.solver) {
    state.active = active;
    state.solver = std::make_unique<BroydenSolver>();
    state.guard.restart();
  }
  const size_t m = active.size();
  std::vector<double> x(m), f(m), kernel_f(m);
  unsigned bottleneck = 0;
  for (size_t i = 0; i < m; ++i) {
    x[i] = double(t.groups[active[i]]) / double(numgroups);
    f[i] = balanced_busy(state, t, active[i]) / double(t.groups[active[i]]);
    kernel_f[i] = t.kernel[active[i]] / double(t.groups[active[i]]);
    if (t.busy[active[i]] > t.busy[active[bottleneck]]) bottleneck = unsigned(i);
  }
  std::vector<double> proposal = normalized(state.solver->next(x, f));
  if (std::vector<double> profiled = balance_on_profile(state, t, active, numgroups, band); !profiled.empty())
    proposal = std::move(profiled);
  SplitLaunch seen;
  seen.x = x;
  seen.f = f;
  seen.kernel_f = kernel_f;
  seen.makespan = makespan;
  seen.imbalance = imbalance_of(x, f);
  seen.bottleneck = bottleneck;
  seen.band = band;
  proposal = limit_growth(x, state.guard.next(seen, std::move(proposal), state.solver.get()));
  std::vector<double> shares(n, 0.0);
  for (size_t i = 0; i < m; ++i) shares[active[i]] = proposal[i];
  std::vector<uint64_t> next = round_to_groups(shares, numgroups);
  // No slice beyond the extrapolation limit of its measurements; none that
  // alone would take longer than this launch (a tiny slice on a slow
  // device); what is cut goes to home (or the largest slice).
  unsigned sink = state.home;
  if (next[sink] == 0) sink = unsigned(std::max_element(next.begin(), next.end()) - next.begin());
  for (unsigned d = 0; d < n; ++d) {
    if (d == sink || next[d] == 0) continue;
    uint64_t cap = uint64_t(P::kExtrapolation * double(state.devices[d].kernel.largest_groups()));
    uint64_t keep = std::min(next[d], std::max<uint64_t>(cap, 1));
    if (predict_busy(state, d, 1, false) > makespan) keep = 0;
    next[sink] += next[d] - keep;
    next[d] = keep;
  }
  // A device outside the split that probes say would help: re-plan from
  // the cost models. Only on new probe data, or now and then (the split's
  // own times move too): the model took 20 us of each report (plan_cost).
  if (state.probe_reports != state.newcomers_checked_at ||
      ++state.split_reports_unchecked >= P::kNewcomerCheckEvery) {
    state.newcomers_checked_at = state.probe_reports;
    state.split_reports_unchecked = 0;
    auto [modelled, modelled_makespan] = model_split(state, numgroups, true, true);
    bool newcomer = false;
    for (unsigned d = 0; d < n; ++d) newcomer = newcomer || (modelled[d] > 0 && t.groups[d] == 0);
    if (newcomer && modelled_makespan * (1 + P::kSplitMargin) < makespan) {
      next = std::move(modelled);
      state.solver.reset();
      state.active.clear();
    }
  }
  finish_split_plan(state, std::move(next), numgroups);
}

}  // namespace libsplit::sched
