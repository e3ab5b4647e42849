// What a static split launch reports once its sub-kernels completed: their
// times to the scheduler and to owner computes' record, the LIBSPLIT_LOG
// line and the LIBSPLIT_TRACE rows.
//
// A split launch that needs nothing from the host after its sub-kernels (no
// merge, no reduction to combine) returns as soon as they are enqueued, like
// a native launch: its outcome waits here, in launch order, and is reported
// by the launch thread at the start of a later launch once its native events
// completed (deliver_reports), or at the app's end. The scheduler then plans
// a launch or two without the latest times, as it does for whole launches.
// Launch thread only, under the exec lock. (Reading the times on a thread of
// libsplit's instead made a split launch over 4 H100 cost the app 149-168
// us against 85-87: the driver serialises the two threads' calls.)
#pragma once

#include "launch.h"
#include "locality.h"

#include <memory>
#include <string>
#include <vector>

namespace libsplit {

struct ChunkRun {
  sched::Chunk chunk;
  cl_event event = nullptr;  // the sub-kernel's, one reference owned
  double seconds = 0;        // kernel time (LIBSPLIT_INJECT_SLOWDOWN applied)
  cl_ulong start = 0, end = 0;
  // The event's final status once a query saw it final (CL_COMPLETE or a
  // negative error), so that the report does not ask again: each query is
  // ~1.3 us of host time on NVIDIA.
  cl_int final_status = CL_QUEUED;
};

struct SplitOutcome {
  // The launch, copied: the outcome may outlive it.
  sched::LaunchKey key;
  uint64_t id = 0;
  std::string kernel;
  unsigned dim = 0;
  uint64_t total_groups = 0;
  // Per runtime device (all of them; those in `used` ran chunks).
  std::vector<unsigned> used;
  std::vector<std::vector<ChunkRun>> runs;
  std::vector<cl_event> write_begin, write_end;  // markers around its writes (null: none)
  std::vector<TransferStats> moved;
  std::vector<double> gather_seconds_per_device, predicted, slowdown, transfer_seconds;
  std::vector<double> idle_before;  // per device: DeviceIdle::ran (-1: unknown)
  std::vector<uint64_t> read_back;
  double gather_seconds = 0;
  // Host seconds the launch kept the app: its enqueue (asynchronous), or
  // enqueue, wait and merge (synchronous).
  double host_seconds = 0;
  bool first_split = false;  // the first split launch of its shape
  // A device outside the app's context was opening while it ran, or since
  // the launch before (beside_opening): its host time and its devices'
  // idle time say how the driver stalled, not what the split costs.
  bool during_opening = false;
  SplitRecord record;
  std::string notes;  // " | merged" ..., for the log line
  uint64_t racy = 0;
};

// Whether a background opening ran at any time from the end of the previous
// split launch to the end of this one, from Runtime::opening_epoch (odd
// while a slot opens) read then, as this launch started and as it ended.
inline bool beside_opening(uint64_t previous_end, uint64_t start, uint64_t end) {
  return (start & 1) || end != start || start != previous_end;
}
// Sets the outcome's host_seconds (from `host_start`, now_ns) and
// during_opening (beside_opening, the epoch read now; with a note for the
// log line). Launch thread only.
void end_host_time(SplitOutcome& outcome, cl_ulong host_start, uint64_t epoch_at_start);

// Reads the kernel and write times from the outcome's native events
// (complete), releases them, adds the trace's timeline spans. Once: the
// status of a sub-kernel that failed, else CL_SUCCESS.
cl_int read_split_times(SplitOutcome& outcome);
// Reads the times if not done yet and reports the outcome.
void report_split(SplitOutcome& outcome);

// Whether an asynchronous split launch's times are read: where the
// scheduler wants them (not for a settled split of short launches, measured
// one launch in kMeasureEvery), the app's profiled event or the trace needs
// them. Not for the log: reading them costs the app's thread a driver call
// per sub-kernel (on 4 H100 ~17 us of a ~100 us launch), and LIBSPLIT_LOG
// must not change what the app pays.
bool times_read(const sched::LaunchPlan& plan, bool profiled);
// The log line (LIBSPLIT_LOG >= 1) of a split launch whose times are not
// read: its shares and moves, no times. `runs`: its chunks.
void log_untimed_split(const SplitOutcome& outcome, const std::vector<std::vector<ChunkRun>>& runs);

// Whether this is the first split launch of the key's shape on its home
// (under the exec lock, like every launch).
bool first_split_of_shape(const sched::LaunchKey& k);

// Keeps an asynchronous split's outcome until its events complete.
void defer_split_report(std::unique_ptr<SplitOutcome> outcome);
// Reports, in launch order, the deferred outcomes whose events completed;
// with `wait`, waits for all of them first (the app's end).
void harvest_split_reports(bool wait);

}  // namespace libsplit
