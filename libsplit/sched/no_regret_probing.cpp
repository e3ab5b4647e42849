// NoRegretScheduler's exploration: probes (speculative slices the runtime
// runs beside the real work on scratch buffers) sized geometrically, paid
// from the exploration budget, backed off when they teach nothing new.
#include "monotone_search.h"
#include "no_regret_state.h"

#include <algorithm>
#include <cmath>

namespace libsplit::sched {

double NoRegretScheduler::allowed_budget(const KeyState& state) const {
  if (explore_budget_ <= 0) return 0;
  return P::kStartAllowance * state.first_makespan + explore_budget_ * state.total_makespan;
}

NoRegretScheduler::Budget NoRegretScheduler::exploration_budget(const LaunchKey& key) {
  std::lock_guard lock(mutex_);
  KeyState& state = state_for(key, 0);
  return {state.spent, allowed_budget(state)};
}

uint64_t NoRegretScheduler::probe_size(const KeyState& state, unsigned d,
                                       uint64_t numgroups) const {
  const DeviceState& device = state.devices[d];
  if (!device.kernel.known())
    return std::clamp<uint64_t>(device.stored_probe, 1, numgroups);
  const double whole = best_whole(state, numgroups).second;
  if (device.kernel.predict(1) >= whole) return 1;  // one group loses already
  // The share the device would take in a balanced split (point estimates,
  // no extrapolation cap), and the most it can do within one whole launch.
  // Nothing is useful while even the point estimates say splitting loses.
  auto [split, makespan] = model_split(state, numgroups, false, false);
  // (A one-size fit is too pessimistic to judge: keep growing.)
  const bool loses = device.kernel.has_slope() && makespan * (1 + P::kSplitMargin) >= whole;
  const uint64_t useful = loses ? 0 : split[d];
  // At least one group (predict(1) < whole here).
  const uint64_t within =
      std::max<uint64_t>(1, largest_within([&](uint64_t g) { return device.kernel.predict(g); }, numgroups, whole));
  uint64_t size = std::max(P::kGrowth * device.last_probe, within);
  size = std::min({size, numgroups, std::max<uint64_t>(1, 2 * useful)});
  return std::max<uint64_t>(size, 1);
}

void NoRegretScheduler::reset_probe_backoff(KeyState& state) {
  for (DeviceState& device : state.devices) {
    device.backoff = P::kBackoffFirst;
    device.next_probe_at = std::min(device.next_probe_at, state.launches);
  }
}

void NoRegretScheduler::report_probe(const LaunchKey& key, const ChunkTiming& timing) {
  std::lock_guard lock(mutex_);
  KeyState& state = state_for(key, 0);
  const unsigned d = timing.chunk.device;
  if (d >= state.devices.size()) return;
  DeviceState& device = state.devices[d];
  device.probing = false;
  ++state.probe_reports;
  state.spent += std::max(0.0, timing.transfer_seconds);
  const uint64_t size = timing.chunk.group_count;
  if (!(timing.seconds > 0) || size == 0) {  // could not run there
    device.next_probe_at = state.launches + device.backoff;
    device.backoff = std::min(2 * device.backoff, P::kBackoffMax);
    return;
  }
  device.kernel.add(size, timing.seconds);
  if (device.kernel.jumped()) device.whole_seconds = 0;
  if (size == device.stored_probe) device.stored_measured = true;
  if (size == state.numgroups) device.whole_seconds = timing.seconds;
  if (timing.transfer_seconds > 0) device.transfer.add(size, timing.transfer_seconds);
  device.staging_seen = true;
  if (device.kernel.jumped()) device.backoff = P::kBackoffFirst;
  const bool jumped = device.kernel.jumped();
  // Grow at once while the prediction asks for a larger slice; otherwise
  // re-check later, less and less often.
  // A device the point estimates say would help is re-measured at once
  // until its noise is known (the upper bound rests on it).
  bool helps = false;
  if (state.numgroups > 0 && device.kernel.noise_samples() < LinearCostFit::kNoiseSamples) {
    auto [split, makespan] = model_split(state, state.numgroups, false, true);
    helps = split[d] > 0 &&
            makespan * (1 + P::kSplitMargin) < best_whole(state, state.numgroups).second;
  }
  // A probe can finish before the launch it ran beside (one group next to
  // a whole launch): with nothing measured to compare it with, it is judged
  // at the next launch's probe instead of being taken for useless.
  const bool whole_unknown = state.numgroups > 0 && !(best_whole(state, state.numgroups).second > 0);
  if (jumped || helps || whole_unknown ||
      (state.numgroups > 0 && probe_size(state, d, state.numgroups) > size)) {
    device.next_probe_at = state.launches;
  } else if (state.numgroups > 0 &&
             predict_busy(state, d, 1, false) >= best_whole(state, state.numgroups).second) {
    // One group (with its staging) already loses against the whole launch:
    // re-check rarely.
    device.backoff = std::max(device.backoff, P::kBackoffUseless);
    device.next_probe_at = state.launches + device.backoff;
    device.backoff = std::min(2 * device.backoff, P::kBackoffMax);
  } else {
    device.next_probe_at = state.launches + device.backoff;
    device.backoff = std::min(2 * device.backoff, P::kBackoffMax);
  }
}

std::vector<Chunk> NoRegretScheduler::plan_probes(KeyState& state, uint64_t numgroups, long launch,
                                                  const std::vector<uint64_t>& groups, bool* budget_spent) {
  // Probes: every other device without real work and without a probe out,
  // when its back-off allows and the budget has room.
  std::vector<Chunk> probes;
  if (explore_budget_ <= 0 || state.indivisible) return probes;
  const unsigned n = unsigned(devices_.size());
  const double allowed = allowed_budget(state);
  bool any_probing = false;
  for (const DeviceState& device : state.devices) any_probing = any_probing || device.probing;
  for (unsigned d = 0; d < n; ++d) {
    DeviceState& device = state.devices[d];
    if (groups[d] > 0 || device.probing || device.excluded || device.unready || launch < device.next_probe_at)
      continue;
    const uint64_t size = probe_within_budget(state, d, numgroups, launch, allowed, any_probing, budget_spent);
    if (size == 0) continue;
    // The groups the device would take in a split (slices go in device order).
    const uint64_t first_group = d < state.home ? 0 : numgroups - size;
    probes.push_back({d, first_group, size});
    any_probing = true;
    device.probing = true;
    device.last_probe = size;
  }
  return probes;
}

uint64_t NoRegretScheduler::probe_within_budget(const KeyState& state, unsigned d, uint64_t numgroups,
                                                long launch, double allowed, bool any_probing,
                                                bool* budget_spent) const {
  const DeviceState& device = state.devices[d];
  // Staging of the first probe of a device is unknown: it is the small
  // allowance at the start (one group, or the warm-start slice). Later
  // probes are cut to what the budget left can stage.
  // Staging not measured on this device yet: the costliest other
  // device's estimate, if any.
  const LinearCostFit* staging = device.transfer.known() ? &device.transfer : nullptr;
  for (const DeviceState& other : state.devices)
    if (!staging && !device.staging_seen && other.transfer.known()) staging = &other.transfer;
  bool free_staging = !staging && device.staging_seen;  // measured as nothing
  for (const DeviceState& other : state.devices)
    free_staging = free_staging || (!staging && other.staging_seen && !other.transfer.known());
  // The budget first: the wanted size models a split (probe_size), ~20 us
  // on 4 H100 + CPU, and while the budget was spent every launch paid it
  // for every device (whole launches of an axpy whose split had lost cost
  // the app 18-35 us against 4 natively).
  if (free_staging) {
    if (state.spent > allowed) {
      *budget_spent = true;
      return 0;
    }
  } else if (staging) {
    if (staging->predict(1) > allowed - state.spent) {
      *budget_spent = true;
      return 0;
    }
  } else if (any_probing) {
    return 0;  // staging is unknown: one first probe at a time
  } else if (state.spent > allowed || (state.first_makespan <= 0 && launch > 0)) {
    *budget_spent = true;
    return 0;
  }
  const uint64_t wanted = probe_size(state, d, numgroups);
  uint64_t size = wanted;
  if (staging) {
    const double room = allowed - state.spent;
    uint64_t low = 1, high = size;
    while (low < high) {
      uint64_t mid = (low + high + 1) / 2;
      if (staging->predict(mid) <= room)
        low = mid;
      else
        high = mid - 1;
    }
    size = low;
    // A probe cut by the budget to no more than the last one teaches
    // nothing new: wait until the budget allows the larger one.
    if (size < wanted && size <= device.last_probe) {
      *budget_spent = true;
      return 0;
    }
  }
  return size;
}

}  // namespace libsplit::sched
