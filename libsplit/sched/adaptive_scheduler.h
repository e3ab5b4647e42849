// "adaptive" (the default before the no-regret "auto"): Broyden-solved static splits, except for
// kernels whose work moves under a fixed split from one launch to the next
// (irregular, data-dependent kernels), which go to Auto-Tune's chunks.
//
// Signal, per LaunchKey, over the last kWindow split launches: a launch is
// "irregular" when some device kept its share (within kSameShare, relative)
// but its time changed by more than kTimeJump (relative). kTrigger such
// launches switch the key to autotune; it goes back to the solver for a
// re-check after kRecheckFirst launches (doubling while it stays irregular),
// and a single irregular launch then sends it back to autotune.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "scheduler.h"

namespace libsplit::sched {

struct IrregularPolicy {
  static constexpr unsigned kWindow = 8;
  static constexpr unsigned kTrigger = 3;
  static constexpr double kSameShare = 0.02;
  static constexpr double kTimeJump = 0.3;
  static constexpr unsigned kRecheckFirst = 32, kRecheckMax = 512;
};

class AdaptiveScheduler final : public Scheduler {
 public:
  AdaptiveScheduler(std::unique_ptr<Scheduler> solver, std::unique_ptr<Scheduler> chunks);
  std::string_view name() const override { return "adaptive"; }
  std::unique_ptr<LaunchPlan> plan(const LaunchKey& key, uint64_t numgroups) override;
  void report(const LaunchKey& key, const std::vector<ChunkTiming>& timings) override;

 private:
  struct KeyState {
    bool chunked = false;
    bool rechecking = false;
    unsigned launches = 0, switched_at = 0, recheck = IrregularPolicy::kRecheckFirst;
    std::vector<uint64_t> groups;  // latest split launch
    std::vector<double> seconds;
    std::vector<bool> irregular;   // recent split launches
  };
  std::unique_ptr<Scheduler> solver_, chunks_;
  std::mutex mutex_;
  std::map<LaunchKey, KeyState, ShapeLess> states_;
};

}  // namespace libsplit::sched
