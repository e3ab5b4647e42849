// NoRegretScheduler: the devices outside the app's context. When to open
// them (ski rental on the launches that could be split, or at once where
// the command's last run says they paid) and, at the run's end, the verdict
// the next run of the command starts from: how many groups of them paid.
#include "no_regret_state.h"

#include <algorithm>
#include <cstdio>

namespace libsplit::sched {

void NoRegretScheduler::set_opening_cost(double seconds) {
  std::lock_guard lock(mutex_);
  opening_cost_ = seconds;
}

void NoRegretScheduler::set_openings(const std::vector<double>& seconds) {
  std::lock_guard lock(mutex_);
  openings_ = seconds;
}

void NoRegretScheduler::set_opening_groups(const std::vector<int>& group_of_device) {
  std::lock_guard lock(mutex_);
  group_of_device_ = group_of_device;
}

void NoRegretScheduler::set_app(const std::string& command_line) {
  std::lock_guard lock(mutex_);
  app_ = command_line;
  WarmStartStore::Retry retry{};
  if (warm_start_) app_opening_ = warm_start_->app_opening(app_, &app_groups_, &retry);
  retry.after = std::clamp(retry.after, P::kRetryLostFirst, P::kRetryLostMax);
  if (app_opening_ == WarmStartStore::Opening::lost) {
    if (++retry.runs >= retry.after) {
      // Tried again as a command never seen (on demand); if it loses again,
      // twice as many runs before the next try.
      app_opening_ = WarmStartStore::Opening::unknown;
      retrying_lost_ = true;
      retry_lost_after_ = std::min(2 * retry.after, P::kRetryLostMax);
      retry = {0, retry_lost_after_, retry.why};
    }
    warm_start_->remember_app(app_, WarmStartStore::Opening::lost, retry.why, kAllGroups, retry);
  } else if (app_opening_ == WarmStartStore::Opening::untried) {
    retry_lost_after_ = retry.after;
  }
  // want() keeps to the groups that paid.
  if (app_opening_ == WarmStartStore::Opening::paid || app_opening_ == WarmStartStore::Opening::untried)
    want(kAllGroups);
}

int NoRegretScheduler::group_of(unsigned d, unsigned home) const {
  if (d < group_of_device_.size()) return group_of_device_[d];
  return d == home ? -1 : int(d > home ? d - 1 : d);
}

unsigned NoRegretScheduler::groups_needed(const KeyState& state, const LaunchTimes& t) const {
  unsigned needed = 0;
  for (unsigned d = 0; d < t.groups.size(); ++d)
    if (t.groups[d] > 0) needed = std::max(needed, unsigned(group_of(d, state.home) + 1));
  return needed;
}

// Untold, device 0 counts as the app's (as in groups_needed of a key at home 0).
size_t NoRegretScheduler::opened_groups(size_t groups) const {
  if (ready_.empty()) return groups;
  size_t opened = 0;
  for (unsigned d = 0; d < ready_.size(); ++d)
    if (ready_[d]) opened = std::max(opened, size_t(group_of(d, 0) + 1));
  return opened;
}

unsigned NoRegretScheduler::count_split_report(KeyState& state, const LaunchTimes& t) const {
  if (state.split_reports++ == 0) state.first_split_at = state.launches;
  const unsigned needed = groups_needed(state, t);
  if (state.reports_by_groups.size() <= needed) {
    state.reports_by_groups.resize(needed + 1, 0);
    state.gain_by_groups.resize(needed + 1, 0.0);
  }
  ++state.reports_by_groups[needed];
  return needed;
}

// A key's launches before its first split count as split, with its gain per
// split launch: a run whose devices opened on demand split only its later
// launches (mandelbrot on 2 H200: 32 of 100, 65 ms saved for a 117 ms
// opening; 2.1 ms a launch over its 100 launches pays). A key whose splits
// stopped (lost, or refused for their moves) counts as it ran: a few early
// splits are no promise for the rest (3mm). With k groups open a key gains
// per launch what its best split within them gained (the devices of a run
// join one at a time, so one run measures the splits over 1, 2, ... groups).
std::vector<double> NoRegretScheduler::savings_by_groups(long* reports_seen, long* launches, bool* split) const {
  // Fewer split launches than this tell too little: the first one stages
  // the data (gemm's on 2 H100: the last of its 100 launches).
  constexpr long kSplitsToJudge = 4;
  size_t size = std::max<size_t>(openings_.empty() ? devices_.size() : openings_.size() + 1, 1);
  for (const auto& [key, state] : states_) size = std::max(size, state->reports_by_groups.size());
  std::vector<double> savings(size, 0.0);
  for (const auto& [key, state] : states_) {
    *launches += state->launches;
    if (state->split_reports == 0) continue;
    *split = *split || state->split_reports >= kSplitsToJudge;
    *reports_seen += state->split_reports;
    const double before_first = state->split_stopped ? 0.0 : double(state->first_split_at);
    const double split_launches = double(state->split_reports + state->unmeasured_splits) + before_first;
    double best = 0;
    for (size_t k = 0; k < size; ++k) {
      if (k < state->reports_by_groups.size() && state->reports_by_groups[k] > 0)
        best = std::max(best, state->gain_by_groups[k] / double(state->reports_by_groups[k]));
      savings[k] += best * split_launches;
    }
  }
  return savings;
}

void NoRegretScheduler::set_launch_span(double first_seconds, double last_seconds) {
  std::lock_guard lock(mutex_);
  first_launch_ = first_seconds;
  last_launch_ = last_seconds;
}

double NoRegretScheduler::opening_of(size_t k) const {
  return openings_.size() >= k ? openings_[k - 1] : opening_cost_;
}

// The launches are taken as spread evenly over the span. On 4 H200 a run
// with every GPU opened at its first context gained where the loop outlived
// the openings (histogram 2.47x -> 2.76x, syrk 2.22x -> 2.36x: the fourth
// GPU joins ~405 ms in) and lost where it ended before they joined (gemm
// 1.47x -> 1.23x), which the whole-run count could not tell apart: it
// priced each opening in full against its gain over every launch.
void NoRegretScheduler::weigh_by_join_time(std::vector<double>& savings, std::vector<double>& costs) const {
  const double span = last_launch_ - first_launch_;
  double join = 0;                                      // group k's join time
  double before = savings.empty() ? 0.0 : savings[0];  // savings[k - 1] as measured
  for (size_t k = 1; k < costs.size(); ++k) {
    join += opening_of(k);
    // The share of the launches after it joins.
    const double after = span > 0 ? std::clamp((last_launch_ - join) / span, 0.0, 1.0)
                                  : (join <= first_launch_ ? 1.0 : 0.0);
    costs[k] = costs[k - 1] + (after > 0 ? P::kJoinedOpeningShare : 1.0) * opening_of(k);
    if (k >= savings.size()) continue;
    const double measured = savings[k];
    savings[k] = savings[k - 1] + (measured - before) * after;
    before = measured;
  }
}

// A run that opened devices tells the next ones which openings paid: how
// many groups of devices outside the app's context (in the order they
// open) make the splits save the most beyond what opening them costs, had
// they been open from the start, as the next run opens them (matmul: every
// GPU). None where no opening pays (3mm on 4 H100 split a little and,
// opened at once in the next runs, paid +0.44 s of wall time for it; gemm
// saved 35 ms of its loop for +207 ms of wall time, the openings and their
// teardown at exit); the first only where more do not pay for themselves
// (2mm on 4 H100: 1.63x with one more GPU, whole with three). A run that
// opened nothing leaves the verdict as it was.
void NoRegretScheduler::end_run() {
  std::lock_guard lock(mutex_);
  if (!warm_start_ || app_.empty() || wanted_.load(std::memory_order_relaxed) == 0) return;
  long reports_seen = 0, launches = 0;
  bool split = false;
  std::vector<double> savings = savings_by_groups(&reports_seen, &launches, &split);
  using Opening = WarmStartStore::Opening;
  // Devices that opened only as the run ended (gemm on 2 H200: its 325 ms
  // loop asked for the second GPU after 147 ms, which opened 122 ms later)
  // tell nothing, or too little: the next run opens them at its first
  // context once, and its splits decide. A split refused for its moves says
  // enough.
  if (!split && !split_declined_ && app_opening_ == Opening::unknown) {
    warm_start_->remember_app(app_, Opening::untried, "", kAllGroups, {0, retry_lost_after_, ""});
    return;
  }
  const size_t groups = std::max<size_t>(openings_.empty() ? devices_.size() - 1 : openings_.size(), 1);
  std::vector<double> costs(groups + 1, 0.0);  // of the first k groups
  for (size_t k = 1; k <= groups; ++k) costs[k] = costs[k - 1] + opening_of(k);
  if (first_launch_ >= 0) weigh_by_join_time(savings, costs);
  size_t best = groups;
  double best_net = -1, best_cost = 0;
  for (size_t k = 1; k <= groups; ++k) {
    const double net = savings[std::min(k, savings.size() - 1)] - costs[k];
    if (savings[std::min(k, savings.size() - 1)] > 0 && net >= 0 && net > best_net)
      best = k, best_net = net, best_cost = costs[k];
  }
  const double cost = costs[groups];
  // Groups that never opened in this run (it ended first) tell nothing
  // against themselves: where what was measured pays for every group, the
  // next run opens every one and its splits decide how many to keep. Not in
  // a run kept to the groups an earlier verdict chose (it would undo that
  // verdict every other run). An open group no split took a share of (a
  // slow CPU) is measured: not worth it.
  const double all_net = savings[std::min(groups, savings.size() - 1)] - cost;
  if (opened_groups(groups) < groups && app_groups_ == kAllGroups && savings.back() > 0 && all_net >= 0)
    best = groups, best_net = all_net, best_cost = cost;
  const bool paid = best_net >= 0;
  if (!paid) best_cost = cost;
  char why[200];
  snprintf(why, sizeof why,
           "splits would save %.4f s (from %ld measured split launches of %ld), openings cost %.4f s (%zu of %zu groups)",
           paid ? savings[std::min(best, savings.size() - 1)] : savings.back(), reports_seen, launches, best_cost,
           paid ? best : groups, groups);
  warm_start_->remember_app(app_, paid ? Opening::paid : Opening::lost, why, best == groups ? kAllGroups : unsigned(best),
                            {0, retry_lost_after_, ""});
}

// Nothing opens for a command whose last openings did not pay, and no more
// than those that paid.
void NoRegretScheduler::want(unsigned groups) {
  if (app_opening_ == WarmStartStore::Opening::lost) return;
  groups = std::min(groups, app_groups_);
  if (wanted_.load(std::memory_order_relaxed) < groups) wanted_.store(groups, std::memory_order_relaxed);
}

// A run too short to pay for a device then loses at most the opening cost
// (ep's 121 ms loop on an H100 never pays for a second one), a long one
// pays it once. A split stored by an earlier run paid off: every device at
// once; a key stored whole after its split lost asks for none (nbody's
// one-wave kernel), but in a run that tries again after a lost verdict;
// one stored whole untried counts like a new one. Before
// a key makes a device open, its halves on home tell whether any split of
// it could gain (true: this launch runs in halves).
bool NoRegretScheduler::count_toward_opening(KeyState& state) {
  // Nothing opens in a run after openings lost (want()): no halves either.
  if (app_opening_ == WarmStartStore::Opening::lost) return false;
  if (wanted_.load(std::memory_order_relaxed) >= app_groups_) return false;
  using Earlier = KeyState::Earlier;
  switch (state.earlier) {
    case Earlier::split: want(kAllGroups); return false;
    case Earlier::whole_elsewhere: want(1); return false;
    case Earlier::split_lost: return false;
    case Earlier::nothing:
    case Earlier::whole_untried: break;
  }
  if (state.indivisible) return false;
  const double seconds = state.devices[state.home].whole_seconds;
  run_for_opening_ += seconds;
  state.counted_for_opening += seconds;
  if (run_for_opening_ < opening_cost_) return false;
  using Halves = KeyState::Halves;
  if (state.halves == Halves::untested && seconds >= P::kHalvesMin) {
    state.halves = Halves::asked;
    state.halves_asked_at = state.launches;
    return true;
  }
  if (state.halves == Halves::asked && state.launches <= state.halves_asked_at + P::kHalvesWait) return false;
  want(1);
  return false;
}

}  // namespace libsplit::sched
