// The static-split schedulers (uniform, static, fixedpoint, broyden): one
// contiguous chunk per device, shares re-solved after every launch from the
// measured times, per LaunchKey. Adaptive ones also decide whether to split
// at all and keep a warm-start file.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cliff_guard.h"
#include "scheduler.h"
#include "solvers.h"
#include "warm_start.h"

namespace libsplit::sched {

struct SplitSchedulerConfig {
  std::string name;
  std::vector<double> initial_shares;  // first launch of a key (no warm start)
  std::function<std::unique_ptr<GranularitySolver>()> make_solver;
  // Learns from measurements: may run a launch whole on one device (OmpSs
  // versioning idea) and stores/loads warm-start files.
  bool adaptive = false;
};

// Split-vs-whole policy constants (see README).
struct WholePolicy {
  static constexpr unsigned kMinSplitLaunches = 2;     // before any whole try
  static constexpr double kExploreIfWithin = 1.15;     // estimate vs split makespan
  static constexpr double kBalanced = 0.05;            // imbalance of a converged split
  // Re-check intervals (launches); doubled each time a re-check confirms
  // the current mode, up to the maximum, reset when the mode changes.
  static constexpr unsigned kRecheckSplitFirst = 8, kRecheckSplitMax = 128;   // in whole mode
  static constexpr unsigned kRecheckWholeFirst = 16, kRecheckWholeMax = 256;  // in split mode
};

// Overshoot guard of the adaptive schedulers (cliff_guard.h): triggered by a
// launch kTrigger slower than the previous one with another bottleneck
// device, bisects at once for at most kMaxSteps steps (or down to one
// group); a best split more unbalanced than kCliffImbalance is held while
// its makespan holds (within kHold), at most kSettledLaunches launches.
struct OvershootPolicy {
  static constexpr double kTrigger = 0.05;
  static constexpr unsigned kMaxSteps = 8;
  static constexpr double kHold = 0.05;
  static constexpr double kCliffImbalance = 0.15;
  static constexpr unsigned kSettledLaunches = 24;
};

class SplitScheduler final : public Scheduler {
 public:
  SplitScheduler(SplitSchedulerConfig config, const std::vector<DeviceInfo>& devices,
                 const SchedulerOptions& options);
  ~SplitScheduler() override;
  std::string_view name() const override { return config_.name; }
  bool fixed_shares() const override { return !config_.adaptive; }
  std::unique_ptr<LaunchPlan> plan(const LaunchKey& key, uint64_t numgroups) override;
  void report(const LaunchKey& key, const std::vector<ChunkTiming>& timings) override;

 private:
  struct KeyState;
  KeyState& state_for(const LaunchKey& key);
  std::optional<unsigned> decide_whole(KeyState& state, uint64_t numgroups) const;
  std::vector<double> per_group_times(const KeyState& state,
                                      const std::vector<uint64_t>& groups,
                                      const std::vector<double>& seconds) const;
  // The report of the whole launch the last plan asked for: whole mode
  // confirmed or left, and the next re-check.
  void report_whole(const LaunchKey& key, KeyState& state, double makespan, unsigned launch);
  void maybe_save(const LaunchKey& key, KeyState& state, double imbalance);
  // The makespan a balanced split should reach, from the cost models
  // (0 when unknown).
  double predicted_balanced(const KeyState& state, uint64_t numgroups) const;
  // What a whole launch competes against: the measured split makespan when
  // that split was balanced, else the predicted balanced one.
  double split_reference(const KeyState& state) const;
  void trim_small_slices(const KeyState& state, std::vector<uint64_t>& groups,
                         uint64_t numgroups) const;

  SplitSchedulerConfig config_;
  size_t device_count_;
  std::vector<double> powers_;  // nominal, for devices never measured
  bool allow_whole_;
  std::optional<WarmStartStore> warm_start_;
  std::mutex mutex_;
  std::map<LaunchKey, std::unique_ptr<KeyState>, ShapeLess> states_;
};

// Nominal device powers: compute_units * clock_mhz, GPUs weighted by
// kGpuWeight (a GPU compute unit runs many more lanes than a CPU core).
inline constexpr double kGpuWeight = 8.0;
std::vector<double> nominal_powers(const std::vector<DeviceInfo>& devices);

}  // namespace libsplit::sched
