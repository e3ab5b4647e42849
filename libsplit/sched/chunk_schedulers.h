// Chunk schedulers (EngineCL, OmpSs): a launch is cut into packages that the
// devices pull as they become idle.
//   dynamic:  equal packages (numgroups / packages).
//   hguided:  package_i = floor(G_r * P_i / (k * n * sum P)), at least the
//             minimum size; G_r = groups not yet handed out, P = nominal powers.
//   autotune: hguided whose powers are the throughputs measured at earlier
//             launches of the same key and whose k follows the measured
//             imbalance; minimum package = compute_units groups on CPUs,
//             max(compute_units, 5% of the groups) on GPUs (Perez 2018).
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "scheduler.h"

namespace libsplit::sched {

class DynamicScheduler final : public Scheduler {
 public:
  DynamicScheduler(size_t devices, unsigned packages);
  std::string_view name() const override { return "dynamic"; }
  std::unique_ptr<LaunchPlan> plan(const LaunchKey& key, uint64_t numgroups) override;
  void report(const LaunchKey&, const std::vector<ChunkTiming>&) override {}

 private:
  size_t devices_;
  unsigned packages_;
};

class HGuidedScheduler final : public Scheduler {
 public:
  HGuidedScheduler(std::vector<double> powers, double k, uint64_t min_groups);
  std::string_view name() const override { return "hguided"; }
  std::unique_ptr<LaunchPlan> plan(const LaunchKey& key, uint64_t numgroups) override;
  void report(const LaunchKey&, const std::vector<ChunkTiming>&) override {}

 private:
  std::vector<double> powers_;
  double k_;
  uint64_t min_groups_;
};

class AutoTuneScheduler final : public Scheduler {
 public:
  explicit AutoTuneScheduler(const std::vector<DeviceInfo>& devices);
  std::string_view name() const override { return "autotune"; }
  std::unique_ptr<LaunchPlan> plan(const LaunchKey& key, uint64_t numgroups) override;
  void report(const LaunchKey& key, const std::vector<ChunkTiming>& timings) override;

 private:
  struct KeyState {
    std::vector<double> rate;  // groups per second, 0 = not measured yet
    double k = 2.0;
  };
  std::vector<DeviceInfo> devices_;
  std::vector<double> nominal_;
  std::mutex mutex_;
  std::map<LaunchKey, KeyState, ShapeLess> states_;
};

// The package size HGuided gives device i (exposed for tests).
uint64_t hguided_package(uint64_t remaining, const std::vector<double>& powers, unsigned device,
                         double k, uint64_t min_groups);

}  // namespace libsplit::sched
