// The default scheduler ("auto"): no regret against the app's own device.
//
// A key's first launch runs whole on `LaunchKey::home` (split evenly only
// with devices identical to home). Other devices are learned only through
// probes: speculative chunks the runtime runs beside the real work on
// scratch buffers, off the critical path except for the staging of their
// inputs, which is charged to an exploration budget. A split is planned only
// when its predicted makespan, taken at an upper confidence bound from the
// measured noise and including the measured transfer cost, beats the best
// measured whole launch by a margin; whole on another device only when a
// probe measured it to beat home clearly. A split that turns out slower than
// whole goes back to whole at once. While split, the measured times drive
// Broyden's method (solvers.h) with a cliff guard that tells a cliff (time
// depends on the share) from a load step (time changed at the same share).
// README.md lists the constants.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cliff_guard.h"
#include "cost_model.h"
#include "scheduler.h"
#include "solvers.h"
#include "warm_start.h"

namespace libsplit::sched {

class StaticPlan;

struct NoRegretPolicy {
  // A split's upper-bound makespan must beat the best whole launch by this.
  static constexpr double kSplitMargin = 0.02;
  // The work profile's split replaces the solver's where the solver's
  // predictions are off by more than this (and the launch's noise band) and
  // twice the profile's (work_profile.h).
  static constexpr double kProfileMinError = 0.05;
  // A split launch whose slices moved at least this share of the groups
  // from the last split's (or from whole) moved its data once
  // (charge_first_staging).
  static constexpr double kMovedSlices = 0.10;
  // Whole on a non-home device must beat home by this (probe-measured).
  static constexpr double kWholeMargin = 0.10;
  // Confidence bounds: this many measured relative sigmas.
  static constexpr double kSigmas = 1.5;
  // A split that is slower than whole by more than kSigmas sigmas plus this
  // goes back to whole.
  static constexpr double kGoBackSlack = 0.01;
  // ... unless the key serves launches in several roles (LaunchKey::role)
  // and the latest launch of each, together, did not: 3mm's three products
  // share the matmul kernel and its shape; the third gathers what the second
  // wrote, 3.80 ms split against 3.14 ms whole on 2 H100, while the first two
  // take 1.60 ms. The cycle is what gains. At most kMaxRoles roles are kept.
  static constexpr size_t kMaxRoles = 8;
  // Probe sizes grow geometrically; no slice exceeds kExtrapolation times
  // the largest size the device was measured at.
  static constexpr uint64_t kGrowth = 4;
  static constexpr double kExtrapolation = 4.0;
  // Re-probes of a device that did not grow (useless or already measured at
  // its useful size): after kBackoffFirst launches, doubling to kBackoffMax.
  static constexpr unsigned kBackoffFirst = 4, kBackoffMax = 256;
  // ... from kBackoffUseless on when one group (with its staging) takes
  // longer than the whole launch on the best device.
  static constexpr unsigned kBackoffUseless = 32;
  // Exploration budget at start: this times the first launch's makespan
  // (on top of SchedulerOptions::explore_budget times the run so far).
  static constexpr double kStartAllowance = 0.25;
  // Probe staging the runtime may always spend (seconds), even before the
  // first launch is measured: a few MB copied on the host.
  static constexpr double kMinStagingRoom = 1e-3;
  // After a failed split, no split for 2^failures launches (at most this).
  static constexpr unsigned kBlockMax = 64;
  // Cliff guard: bisection steps, imbalance that marks a cliff, launches a
  // cliff split is held at most (a load step releases it earlier).
  static constexpr unsigned kCliffSteps = 6, kHoldMax = 64;
  static constexpr double kCliffImbalance = 0.15;
  // A settled whole launch (its device's noise known, no probe out) or a
  // settled split (its plan unchanged for kMeasureEvery launches) shorter
  // than kMeasureAlways seconds is measured only every kMeasureEvery
  // launches; longer ones every time (a report costs a few microseconds of
  // host time, under 1 % of such a launch, and a load step on home is then
  // seen at the launch it starts instead of up to 8 launches later).
  static constexpr long kMeasureEvery = 8;
  static constexpr double kMeasureAlways = 1e-3;
  // Plans that move at most this share of the groups count as the same.
  static constexpr double kSettledMove = 1.0 / 64;
  // A device's first split launch is judged without its transfer when the
  // split's gain over whole pays it back within this many launches (or as
  // many as the key has run, if more): it staged inputs the device keeps.
  static constexpr double kStagingPaybackLaunches = 4;
  // A command whose openings did not pay runs whole, then opens on demand
  // again (as if new) after this many runs, twice as many after each verdict
  // that stays lost, at most kRetryLostMax: one run misjudged (2mm over 4
  // GPUs + CPU, its splits charged the openings' stalls) or run while
  // another job held the GPUs is no verdict for good.
  static constexpr unsigned kRetryLostFirst = 4, kRetryLostMax = 64;
  // A running split looks for a helper outside it (a model of the split,
  // ~20 us) on new probe data, else every this many of its reports.
  static constexpr long kNewcomerCheckEvery = 32;
  // A key whose whole launches reach the opening cost runs once in two
  // halves on home first, if a whole launch takes at least kHalvesMin
  // seconds (shorter ones are mostly launch latency, and no split of them
  // pays an opening); it is indivisible where the halves together take
  // kIndivisible times the whole launch or more (nbody's 512 groups on an
  // H100: one wave, a quarter of them took as long as all). A device opens
  // for the key kHalvesWait launches after the halves were asked at most,
  // measured or not.
  static constexpr double kHalvesMin = 100e-6, kIndivisible = 1.6;
  static constexpr long kHalvesWait = 4;
  // What a group of devices that joins before the app's launches end costs
  // the app, as a share of its opening: its context's teardown at exit
  // (75-79 ms for an H100 context that took 116-197 ms to open), and no wall
  // time was seen for it on 4 H200 where the loop outlived the openings.
  static constexpr double kJoinedOpeningShare = 0.25;
};

class NoRegretScheduler final : public Scheduler {
 public:
  NoRegretScheduler(const std::vector<DeviceInfo>& devices, const SchedulerOptions& options);
  ~NoRegretScheduler() override;
  std::string_view name() const override { return "auto"; }
  std::unique_ptr<LaunchPlan> plan(const LaunchKey& key, uint64_t numgroups) override;
  void report(const LaunchKey& key, const std::vector<ChunkTiming>& timings) override;
  void report_probe(const LaunchKey& key, const ChunkTiming& timing) override;
  void split_declined(const LaunchKey& key) override;
  void set_ready(const std::vector<bool>& ready) override;
  bool plans_by_readiness() const override { return true; }
  unsigned devices_wanted() const override { return wanted_.load(std::memory_order_relaxed); }
  void set_opening_cost(double seconds) override;
  void set_openings(const std::vector<double>& seconds) override;
  void set_opening_groups(const std::vector<int>& group_of_device) override;
  void set_app(const std::string& command_line) override;
  void set_launch_span(double first_seconds, double last_seconds) override;
  void end_run() override;
  // False where every device runs on the host's cores (they count as one).
  bool may_use_several_devices() const override;

  // Exploration budget of a key (seconds of probe staging): for logs/tests.
  struct Budget {
    double spent = 0, allowed = 0;
    bool exhausted() const { return spent >= allowed; }
  };
  Budget exploration_budget(const LaunchKey& key);

 private:
  struct DeviceState;
  struct KeyState;
  KeyState& state_for(const LaunchKey& key, uint64_t numgroups);
  // The one device on the host's cores that may take part beside `home`
  // (home itself when it is one); the others on those cores are excluded.
  std::optional<unsigned> host_helper(unsigned home) const;
  double allowed_budget(const KeyState& state) const;
  // Predicted busy seconds (kernel + transfer) of `groups` on device d in a
  // split; `upper`: at the upper confidence bound.
  double predict_busy(const KeyState& state, unsigned d, uint64_t groups, bool upper) const;
  // Measured whole-launch seconds of the best whole candidate (home unless
  // a probe measured another device to beat it clearly).
  std::pair<unsigned, double> best_whole(const KeyState& state, uint64_t numgroups) const;
  // Balanced split over the devices allowed in it (known cost, no probe
  // out, slices capped by the extrapolation limit); returns groups per
  // device and its predicted makespan.
  std::pair<std::vector<uint64_t>, double> model_split(const KeyState& state, uint64_t numgroups,
                                                       bool upper, bool capped) const;
  // The most groups each device may take in a split (0: not in it).
  std::vector<uint64_t> split_caps(const KeyState& state, uint64_t numgroups, bool upper,
                                   bool capped) const;
  // The most groups (up to cap) device d finishes within t seconds.
  uint64_t fits(const KeyState& state, unsigned d, uint64_t cap, double t, bool upper) const;
  // Whether some split with a helper could finish within `seconds` (upper
  // bounds, capped): false means model_split cannot beat it.
  bool split_may_beat(const KeyState& state, uint64_t numgroups, double seconds) const;
  uint64_t probe_size(const KeyState& state, unsigned d, uint64_t numgroups) const;
  void reset_probe_backoff(KeyState& state);
  // The plan of a launch: whole or split (state.split), then the plan of
  // that mode (`groups` per device), then the probes beside it.
  void choose_mode(KeyState& state, uint64_t numgroups, long launch);
  std::unique_ptr<StaticPlan> plan_for_mode(KeyState& state, uint64_t numgroups, long launch,
                                            std::vector<uint64_t>& groups);
  std::vector<Chunk> plan_probes(KeyState& state, uint64_t numgroups, long launch,
                                 const std::vector<uint64_t>& groups, bool* budget_spent);
  // The size of device d's next probe within the budget left; 0: none now
  // (*budget_spent set when the budget is what stops it).
  uint64_t probe_within_budget(const KeyState& state, unsigned d, uint64_t numgroups, long launch,
                               double allowed, bool any_probing, bool* budget_spent) const;
  // The report of a real launch, in stages.
  struct LaunchTimes;
  // A device's first split launch: staging it keeps, charged to exploration
  // when the split's gain pays it back soon (taken out of `t`).
  void charge_first_staging(KeyState& state, LaunchTimes& t, uint64_t role);
  // A split report of devices other than those of the split planned after
  // a device joined (a launch planned before).
  bool stale_after_growth(const KeyState& state, const LaunchTimes& t) const;
  // Idle seconds a split added before its launch (ChunkTiming::idle_before)
  // beyond home's before whole launches (whole_idle < 0: unknown, none).
  static double added_idle(const LaunchTimes& t, double whole_idle);
  void report_whole(const LaunchKey& key, KeyState& state, unsigned device_index, uint64_t numgroups,
                    double kernel_seconds, double transfer_seconds, double idle_before);
  // Adds the split's samples to the devices' fits, telling load steps
  // (jumps) from noise; returns the noise band of this launch.
  double track_load_steps(KeyState& state, const LaunchTimes& t, uint64_t numgroups);
  // Whether the split lost against whole (beyond noise, or unproven on
  // trust): then back to whole, splits blocked for a while.
  // The key's roles' latest excess over whole, this launch's recorded
  // (split_lost): whether they together stay within `slack` each.
  static bool cycle_gains(KeyState& state, uint64_t role, double excess, double slack);
  bool split_lost(const LaunchKey& key, KeyState& state, double makespan, double whole_before,
                  double band, uint64_t numgroups);
  // The next split: the solver's step behind the cliff guard, capped.
  void rebalance(KeyState& state, const LaunchTimes& t, uint64_t numgroups, double makespan, double band);
  // The shares of `active` (in order) that balance their predicted times
  // over the work profile learned from this launch and the earlier ones
  // (work_profile.h); empty where it cannot tell.
  std::vector<double> balance_on_profile(KeyState& state, const LaunchTimes& t,
                                         const std::vector<unsigned>& active, uint64_t numgroups,
                                         double band) const;
  static void score_models(KeyState& state, const LaunchTimes& t, const std::vector<unsigned>& active);
  static double balanced_busy(KeyState& state, const LaunchTimes& t, unsigned d);
  void finish_split_plan(KeyState& state, std::vector<uint64_t> groups, uint64_t numgroups);
  // Brings the key's view of the ready devices up to date (set_ready): a
  // split that uses a device not ready, or that a newly ready twin could
  // join, is planned again.
  void sync_ready(KeyState& state);
  // A new split's balancing starts afresh: the solver, its devices, the
  // cliff guard.
  void restart_balancing(KeyState& state);
  void block_split(KeyState& state, std::string why);
  // The launch log's reason for a whole plan after a split stopped.
  std::string why_whole(const KeyState& state, long launch) const;
  void maybe_save(const LaunchKey& key, KeyState& state, double imbalance);
  // Ski rental on opening devices: a launch of a key not known to stay
  // whole adds its home time; the first other device is wanted once that
  // sum reaches the opening cost, every device once a split won or a key's
  // stored decision is a split.
  bool count_toward_opening(KeyState& state);
  bool judged_halves(const LaunchKey& key, KeyState& state, const std::vector<ChunkTiming>& timings);
  // A split plan repeated for a while, of short launches: measured one
  // launch in kMeasureEvery (plan.set_wants_report(false) otherwise).
  void sample_settled_split(KeyState& state, StaticPlan& plan, const std::vector<uint64_t>& groups, long launch);
  void want(unsigned groups);
  // How many groups of devices outside the app's context the split of `t`
  // needs open (0: it uses only devices opened with the app's).
  unsigned groups_needed(const KeyState& state, const LaunchTimes& t) const;
  // The group device d opens with (-1: with the app's context), for a key
  // at `home` where set_opening_groups told nothing.
  int group_of(unsigned d, unsigned home) const;
  // Counts a split report (split_reports, first_split_at, and by the groups
  // it needed: reports_by_groups); returns those groups.
  unsigned count_split_report(KeyState& state, const LaunchTimes& t) const;
  // end_run: the saving the keys' splits would bring with the first k groups
  // open from the start, for each k (0 for a k no split measured).
  std::vector<double> savings_by_groups(long* reports_seen, long* launches, bool* split) const;
  // How many of the `groups` opened in this run (the last one ready; every
  // one where readiness was never told).
  size_t opened_groups(size_t groups) const;
  // end_run, where the launch span is known: savings by groups counting
  // each group's gain over the groups before it only on the share of the
  // launches after it would join, opened at the first context (the sum of
  // the openings up to it: the driver opens them one at a time); and what
  // the first k groups cost (openings[k]: each the share of its opening that
  // a joined group costs, or all of it where it would join after the last
  // launch).
  void weigh_by_join_time(std::vector<double>& savings, std::vector<double>& costs) const;
  // What opening group k (1-based) costs: as told, else set_opening_cost.
  double opening_of(size_t k) const;

  std::vector<DeviceInfo> devices_;
  double explore_budget_;
  bool shared_cores_;  // SchedulerOptions::host_devices_share_cores
  std::optional<WarmStartStore> warm_start_;
  std::mutex mutex_;
  std::vector<bool> ready_;  // set_ready; empty: every device
  std::atomic<unsigned> wanted_{0};  // devices_wanted()
  double opening_cost_ = 0;          // seconds (set_opening_cost)
  std::vector<double> openings_;     // set_openings; empty: not told
  std::vector<int> group_of_device_;  // set_opening_groups; empty: not told
  bool split_declined_ = false;      // a split of this run was refused for its moves
  double run_for_opening_ = 0;       // seconds counted toward it
  double first_launch_ = -1, last_launch_ = -1;  // set_launch_span; < 0: not told
  std::string app_;                  // set_app
  // What opening devices did for app_'s last run that opened them.
  WarmStartStore::Opening app_opening_ = WarmStartStore::Opening::unknown;
  unsigned app_groups_ = kAllGroups;  // the most groups it may open (paid for fewer)
  // A lost verdict written by this run waits this many runs before the next try.
  unsigned retry_lost_after_ = NoRegretPolicy::kRetryLostFirst;
  // This run tries again after a lost verdict: kernels stored whole after
  // their split lost count as untried (their loss may be the verdict's own
  // misjudgement: 2mm's splits charged the openings' stalls).
  bool retrying_lost_ = false;
  unsigned ready_generation_ = 0;
  // Ordered by the key's fields (home included): no string is built per
  // launch on this path.
  struct KeyLess {
    bool operator()(const LaunchKey& a, const LaunchKey& b) const;
  };
  std::map<LaunchKey, std::unique_ptr<KeyState>, KeyLess> states_;
};

}  // namespace libsplit::sched
