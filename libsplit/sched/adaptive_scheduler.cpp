#include "adaptive_scheduler.h"

#include <algorithm>
#include <cmath>

#include "warm_start.h"

namespace libsplit::sched {

AdaptiveScheduler::AdaptiveScheduler(std::unique_ptr<Scheduler> solver,
                                     std::unique_ptr<Scheduler> chunks)
    : solver_(std::move(solver)), chunks_(std::move(chunks)) {}

std::unique_ptr<LaunchPlan> AdaptiveScheduler::plan(const LaunchKey& key, uint64_t numgroups) {
  bool chunked;
  {
    std::lock_guard lock(mutex_);
    KeyState& state = states_[key];
    if (state.chunked && state.launches >= state.switched_at + state.recheck) {
      state.chunked = false;  // re-check: is the work still moving?
      state.rechecking = true;
      state.irregular.clear();
      state.groups.clear();
      state.recheck = std::min(2 * state.recheck, IrregularPolicy::kRecheckMax);
    }
    chunked = state.chunked;
  }
  return (chunked ? chunks_ : solver_)->plan(key, numgroups);
}

void AdaptiveScheduler::report(const LaunchKey& key, const std::vector<ChunkTiming>& timings) {
  bool chunked;
  {
    std::lock_guard lock(mutex_);
    KeyState& state = states_[key];
    chunked = state.chunked;
    ++state.launches;
    if (!chunked) {
      unsigned devices = 0;
      for (const ChunkTiming& t : timings) devices = std::max(devices, t.chunk.device + 1);
      std::vector<uint64_t> groups(devices, 0);
      std::vector<double> seconds(devices, 0.0);
      uint64_t total = 0;
      for (const ChunkTiming& t : timings) {
        groups[t.chunk.device] += t.chunk.group_count;
        seconds[t.chunk.device] += t.seconds + t.transfer_seconds;
        total += t.chunk.group_count;
      }
      unsigned used = unsigned(std::count_if(groups.begin(), groups.end(),
                                             [](uint64_t g) { return g > 0; }));
      if (used > 1 && total > 0) {  // whole launches say nothing about moving work
        bool irregular = false;
        for (unsigned d = 0; d < devices && d < state.groups.size(); ++d) {
          if (groups[d] == 0 || state.groups[d] == 0 || state.seconds[d] <= 0) continue;
          double share_change = std::fabs(double(groups[d]) - double(state.groups[d])) /
                                double(state.groups[d]);
          double time_change = std::fabs(seconds[d] - state.seconds[d]) / state.seconds[d];
          if (share_change <= IrregularPolicy::kSameShare && time_change > IrregularPolicy::kTimeJump)
            irregular = true;
        }
        if (!state.groups.empty()) state.irregular.push_back(irregular);
        if (state.irregular.size() > IrregularPolicy::kWindow)
          state.irregular.erase(state.irregular.begin());
        state.groups = std::move(groups);
        state.seconds = std::move(seconds);
        // Once seen irregular, one irregular launch of a re-check is enough.
        long needed = state.rechecking ? 1 : long(IrregularPolicy::kTrigger);
        if (std::count(state.irregular.begin(), state.irregular.end(), true) >= needed) {
          state.chunked = true;
          state.switched_at = state.launches;
        } else if (state.rechecking && state.irregular.size() >= IrregularPolicy::kWindow) {
          state.rechecking = false;  // regular again: stay on the solver
          state.recheck = IrregularPolicy::kRecheckFirst;
        }
      }
    }
  }
  (chunked ? chunks_ : solver_)->report(key, timings);
}

}  // namespace libsplit::sched
