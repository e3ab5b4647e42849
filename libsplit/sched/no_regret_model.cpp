// NoRegretScheduler's predictions behind the whole-vs-split choice: a
// device's busy time for a slice (at the upper confidence bound when asked),
// the best whole launch, and the balanced split over the devices allowed in
// it.
#include "monotone_search.h"
#include "no_regret_state.h"

#include <algorithm>
#include <cmath>

namespace libsplit::sched {

double NoRegretScheduler::predict_busy(const KeyState& state, unsigned d, uint64_t groups,
                                       bool upper) const {
  if (groups == 0) return 0;
  const DeviceState& device = state.devices[d];
  double kernel = device.kernel.predict(groups);
  double transfer = 0;
  if (device.transfer.known()) {
    transfer = device.transfer.predict(groups);
  } else {
    // Never measured in a split (typically home): the largest transfer
    // estimate of the other devices for the same slice.
    for (const DeviceState& other : state.devices)
      if (other.transfer.known()) transfer = std::max(transfer, other.transfer.predict(groups));
  }
  double total = kernel + transfer;
  if (upper) total *= device.kernel.upper_factor(P::kSigmas);
  return total;
}

std::pair<unsigned, double> NoRegretScheduler::best_whole(const KeyState& state,
                                                          uint64_t numgroups) const {
  const DeviceState& home = state.devices[state.home];
  std::pair<unsigned, double> best{state.home, home.whole(numgroups)};
  // Another device would move the same data in: against it, home's kernel alone.
  const double home_kernel = home.whole_seconds > 0 ? best.second - home.whole_moved : best.second;
  for (unsigned d = 0; d < state.devices.size(); ++d) {
    const DeviceState& device = state.devices[d];
    // Whole elsewhere only on a measurement of the whole launch there (a
    // whole-size probe or a whole launch): the fit of smaller slices does
    // not speak for the whole when work differs from group to group (the
    // first rows of a Mandelbrot image are 100x cheaper than the middle
    // ones; a probe there made a 2x slower device look faster, and whole
    // launches flipped between the devices at every launch).
    if (d == state.home || device.whole_seconds <= 0 || device.excluded || device.unready) continue;
    // A device identical to home only looks faster by noise, and moving the
    // whole launch there moves all its data (a stencil and its copy kernel
    // then chose different twins and sent 16 MB each way at every launch).
    if (device.twin) continue;
    double upper = device.whole_seconds * device.kernel.upper_factor(P::kSigmas);
    if (upper * (1 + P::kWholeMargin) < std::min(best.second, home_kernel)) best = {d, device.whole_seconds};
  }
  return best;
}

std::vector<uint64_t> NoRegretScheduler::split_caps(const KeyState& state, uint64_t numgroups,
                                                    bool upper, bool capped) const {
  const unsigned n = unsigned(state.devices.size());
  std::vector<uint64_t> cap(n, 0);
  for (unsigned d = 0; d < n; ++d) {
    const DeviceState& device = state.devices[d];
    if (!device.kernel.known() || device.probing || device.excluded || device.unready) continue;
    // A helper joins a split only once it was measured twice at about the
    // same size (one number is no evidence of its noise; work that moves
    // with the data shows as jumps there). A warm start's stored slice,
    // probed at its size, is that evidence.
    if (upper && d != state.home && !device.twin && device.kernel.noise_samples() == 0 &&
        !device.stored_measured)
      continue;
    cap[d] = d == state.home || !capped
                 ? numgroups
                 : std::min<uint64_t>(numgroups, uint64_t(P::kExtrapolation *
                                                          double(device.kernel.largest_groups())));
  }
  return cap;
}

uint64_t NoRegretScheduler::fits(const KeyState& state, unsigned d, uint64_t cap, double t,
                                 bool upper) const {
  // Most groups of d done by t (predict_busy grows with the groups).
  return largest_within([&](uint64_t g) { return predict_busy(state, d, g, upper); }, cap, t);
}

bool NoRegretScheduler::split_may_beat(const KeyState& state, uint64_t numgroups,
                                       double seconds) const {
  // model_split's makespan M covers the launch by M; if the devices cannot
  // cover it by `seconds`, no split reaches M < seconds (one pass instead of
  // model_split's 50: on the GPU node that model cost ~20 us per launch).
  const std::vector<uint64_t> cap = split_caps(state, numgroups, true, true);
  uint64_t total = 0, helpers = 0;
  for (unsigned d = 0; d < cap.size(); ++d) {
    const uint64_t g = cap[d] ? fits(state, d, cap[d], seconds, true) : 0;
    total += g;
    if (d != state.home) helpers += g;
  }
  return helpers > 0 && total >= numgroups;
}

std::pair<std::vector<uint64_t>, double> NoRegretScheduler::model_split(
    const KeyState& state, uint64_t numgroups, bool upper, bool capped) const {
  const unsigned n = unsigned(state.devices.size());
  const std::vector<uint64_t> cap = split_caps(state, numgroups, upper, capped);
  auto covered = [&](double t) {
    uint64_t total = 0;
    for (unsigned d = 0; d < n; ++d) total += fits(state, d, cap[d], t, upper);
    return total;
  };
  double high = 0;
  for (unsigned d = 0; d < n; ++d)
    if (cap[d] == numgroups) high = std::max(high, predict_busy(state, d, numgroups, upper));
  if (high <= 0 || covered(high) < numgroups) return {std::vector<uint64_t>(n, 0), INFINITY};
  double low = 0;
  for (int i = 0; i < 50; ++i) {
    double mid = 0.5 * (low + high);
    (covered(mid) >= numgroups ? high : low) = mid;
  }
  std::vector<uint64_t> groups(n, 0);
  uint64_t total = 0;
  for (unsigned d = 0; d < n; ++d) total += groups[d] = fits(state, d, cap[d], high, upper);
  // Too many groups: take the excess from home first, then the largest.
  while (total > numgroups) {
    unsigned from = groups[state.home] > 0 ? state.home : 0;
    if (groups[from] == 0)
      from = unsigned(std::max_element(groups.begin(), groups.end()) - groups.begin());
    uint64_t take = std::min(groups[from], total - numgroups);
    groups[from] -= take;
    total -= take;
  }
  double makespan = 0;
  for (unsigned d = 0; d < n; ++d)
    makespan = std::max(makespan, predict_busy(state, d, groups[d], upper));
  return {groups, makespan};
}

}  // namespace libsplit::sched
