// NoRegretScheduler's state per LaunchKey and per device, shared by its
// files (no_regret_*.cpp); not part of the scheduler's interface.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cliff_guard.h"
#include "cost_model.h"
#include "no_regret_scheduler.h"
#include "solvers.h"
#include "warm_start.h"
#include "work_profile.h"

namespace libsplit::sched {

// The cliff guard as NoRegretPolicy sets it (no_regret_report.cpp).
CliffGuardPolicy no_regret_cliff_guard_policy();

// Within NoRegretScheduler's members (the policy's constants, P::...).
using P = NoRegretPolicy;

struct NoRegretScheduler::DeviceState {
  LinearCostFit kernel;    // kernel seconds: probes, split slices, whole launches
  LinearCostFit transfer;  // transfer seconds: split slices, probe staging
  bool probing = false;    // a probe is out (issued, not reported)
  uint64_t last_probe = 0;
  long next_probe_at = 0;  // launch index
  unsigned backoff = P::kBackoffFirst;
  uint64_t stored_probe = 0;  // warm start: the size to probe first
  bool stored_measured = false;  // ... and it was measured
  bool staging_seen = false;     // a probe reported its staging (maybe 0)
  bool twin = false;          // identical to home
  bool excluded = false;      // shares home's cores, or another helper's (host_helper)
  bool unready = false;       // not ready yet (Scheduler::set_ready): in no plan
  long split_launches = 0;    // split launches it took part in (this key)
  // Measured whole-launch seconds (smoothed; 0 = none, or stale after a
  // jump of the device's times): what a split competes against.
  double whole_seconds = 0;
  double last_whole_transfer = 0;  // moved in for the latest whole launch here (seconds)
  double whole_moved = 0;          // the part of whole_seconds that is recurring moves
  // The cost model's prediction for a whole launch, the measurement when there is one.
  double whole(uint64_t numgroups) const {
    return whole_seconds > 0 ? whole_seconds : kernel.predict(numgroups);
  }
};

struct NoRegretScheduler::KeyState {
  std::vector<DeviceState> devices;
  unsigned home = 0;
  long launches = 0;  // plans handed out
  uint64_t numgroups = 0;  // of the latest plan
  double first_makespan = 0, total_makespan = 0, spent = 0;
  double split_regret = 0;  // net seconds split launches lost against whole
  // What the current split's latest launch of each role (LaunchKey::role)
  // took beyond whole; emptied by a whole launch and when the split stops.
  std::vector<std::pair<uint64_t, double>> role_excess;
  // The first P::kMaxRoles roles the key has run split in: the first split
  // launch of each staged what it keeps (charge_first_staging).
  std::vector<uint64_t> split_roles;
  // Split launches reported, and the seconds they saved against whole
  // (those that lost count as saving nothing).
  long split_reports = 0;
  double split_gain = 0;
  long first_split_at = -1;  // plans handed out before the first split report
  bool split_stopped = false;  // a split lost or was refused in this run (block_split)
  std::string stopped_why;     // ... and why, for the launch log (LaunchPlan::why_whole)
  // Probe reports so far, and their count when the split last looked for a
  // device outside it that would help (rebalance): the model is re-run only
  // on new probe data, or every NoRegretPolicy::kNewcomerCheckEvery split reports.
  long probe_reports = 0, newcomers_checked_at = -1, split_reports_unchecked = 0;
  long unmeasured_splits = 0;  // split launches planned without a report (settled)
  // The same by how many groups of devices outside the app's context the
  // split needed open (groups_needed): which openings paid.
  std::vector<long> reports_by_groups;
  std::vector<double> gain_by_groups;
  // Home's idle time before a whole launch (ChunkTiming::idle_before,
  // smoothed; < 0: not measured): a split is charged its devices' idle time
  // beyond this (the host round trip the split adds).
  double whole_idle = -1;
  // The latest split plan's groups and how many plans in a row repeated it.
  std::vector<uint64_t> last_split_groups;
  long same_split_plans = 0;
  // Mode: split (next_groups) or whole on whole_device.
  bool split = false;
  unsigned whole_device = 0;
  std::vector<uint64_t> next_groups;
  std::vector<unsigned> active;  // devices of the current split, solver order
  std::unique_ptr<GranularitySolver> solver;
  // Where the work lies along the groups (balance_on_profile), each
  // device's seconds per unit of it (home and its twins 1; 0 = not known),
  // its busy seconds per group at its latest slice; how far off each model's prediction of a split launch's
  // times was (smoothed relative error; < 0: not yet known): the profile's,
  // and the solvers' (a device's time per group stays).
  WorkProfile profile;
  std::vector<double> seconds_per_work;
  std::vector<double> last_busy_per_group;
  double profile_error = -1, flat_error = -1;
  bool on_profile = false;  // the profile's splits are taken (balance_on_profile)
  // The slices of the latest split launch reported (empty after a whole
  // one): a launch on other slices moved data once (charge_first_staging).
  std::vector<Chunk> reported_split;
  // Each device's transfer seconds per group at its latest launch on the
  // slice it already held: what recurs (balanced_busy).
  std::vector<double> recurring_transfer;
  long split_blocked_until = 0;
  unsigned split_failures = 0;
  bool trusted_split = false;  // twins or a verified warm start
  bool twins_tried = false;    // the even split with twins was planned
  unsigned ready_generation = 0;  // of NoRegretScheduler::ready_ last synced
  // A device joined a running split (sync_ready): the split was planned
  // again over more devices; until its first report, reports of launches
  // planned before are not judged, and if the grown split loses it goes
  // back to the split it grew from (fallback_groups), not to whole.
  bool regrown = false;
  std::vector<uint64_t> fallback_groups;
  CliffGuard guard{no_regret_cliff_guard_policy()};
  // Warm start.
  std::optional<StoredDecision> saved;
  long saved_at = -1;
  // What an earlier run stored, as it decides when devices open
  // (count_toward_opening): nothing, a split that paid off, whole on home
  // after a split lost there, whole on home untried, whole elsewhere.
  enum class Earlier { nothing, split, split_lost, whole_untried, whole_elsewhere };
  Earlier earlier = Earlier::nothing;
  // Before a device opens for it, its launch once in two halves on home
  // (LaunchPlan::halves_on_home): asked at launch halves_asked_at, then
  // tested. Indivisible: the halves took as long as all of it together
  // (one wave), so no split can gain and it opens nothing.
  enum class Halves { untested, asked, tested };
  Halves halves = Halves::untested;
  long halves_asked_at = 0;
  bool indivisible = false;
  double counted_for_opening = 0;  // seconds it added to run_for_opening_
};

// One real launch's seconds and groups per device.
struct NoRegretScheduler::LaunchTimes {
  explicit LaunchTimes(unsigned n)
      : groups(n, 0), first(n, 0), moved(n, 0), chunks(n, 0), kernel(n, 0.0), transfer(n, 0.0), busy(n, 0.0),
        idle(n, -1.0) {}
  std::vector<uint64_t> groups;
  std::vector<uint64_t> first;   // of the device's first chunk
  std::vector<uint64_t> moved;   // groups it did not run at the last split launch (charge_first_staging)
  std::vector<unsigned> chunks;  // chunks the device ran
  std::vector<double> kernel, transfer, busy;
  std::vector<double> idle;  // before each device's first chunk (< 0: unknown)
};

}  // namespace libsplit::sched
