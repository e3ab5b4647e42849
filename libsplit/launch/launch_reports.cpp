// Measurements that complete on driver threads (whole launches, probes) wait
// here until the launch thread hands them to the scheduler, in arrival
// order, before it plans the next launch: the scheduler never sees report()
// and plan() race, and a report may simply arrive a few launches late.
#include "launch.h"

#include "device_idle.h"

#include "real_api.h"
#include "split_outcome.h"

#include <atomic>
#include <deque>
#include <mutex>
#include <vector>

namespace libsplit {

namespace {

struct Posted {
  sched::LaunchKey key;
  std::vector<sched::ChunkTiming> timings;
  bool probe = false;
};

std::mutex g_mutex;
// Whether posted() may hold something: the launch thread checks it without
// the lock (most launches find nothing).
std::atomic<bool> g_any_posted{false};
std::deque<Posted>& posted() {
  static auto* queue = new std::deque<Posted>;  // outlives exit-time callbacks
  return *queue;
}

// Whole launches measured by polling their native event (launch thread only).
// Launches under LIBSPLIT_INJECT_SLOWDOWN take the callback path
// (launch_whole.cpp), so these times need no slowdown applied.
struct Watched {
  sched::LaunchKey key;
  uint64_t launch;
  unsigned device;
  uint64_t groups;
  cl_event native;
  double transfer;
};
std::vector<Watched> g_watched;

void harvest_watched(sched::Scheduler& scheduler) {
  size_t kept = 0;
  for (Watched& w : g_watched) {
    const cl_int status = native_status(w.native, CL_QUEUED);
    if (status > CL_COMPLETE) {
      g_watched[kept++] = w;
      continue;
    }
    cl_ulong start = 0, end = 0;
    const double seconds = status == CL_COMPLETE ? event_seconds(w.native, &start, &end) : 0;
    real().clReleaseEvent(w.native);
    if (seconds > 0)
      scheduler.report(w.key, {sched::ChunkTiming{{w.device, 0, w.groups}, seconds, w.transfer,
                                                  idle_unless_moved(w.device, w.launch, start, end, w.transfer)}});
  }
  g_watched.resize(kept);
}

}  // namespace

void watch_whole_launch(const sched::LaunchKey& key, uint64_t launch, unsigned device, uint64_t groups,
                        cl_event native, double transfer) {
  g_watched.push_back({key, launch, device, groups, native, transfer});
}

void post_report(const sched::LaunchKey& key, std::vector<sched::ChunkTiming> timings) {
  std::lock_guard lock(g_mutex);
  posted().push_back({key, std::move(timings), false});
  g_any_posted.store(true, std::memory_order_release);
}

void post_probe_report(const sched::LaunchKey& key, const sched::ChunkTiming& timing) {
  std::lock_guard lock(g_mutex);
  posted().push_back({key, {timing}, true});
  g_any_posted.store(true, std::memory_order_release);
}

void deliver_reports() {
  harvest_split_reports(/*wait=*/false);
  sched::Scheduler& scheduler = *runtime().scheduler;
  if (!g_any_posted.load(std::memory_order_acquire)) {
    if (!g_watched.empty()) harvest_watched(scheduler);
    return;
  }
  std::deque<Posted> due;
  {
    std::lock_guard lock(g_mutex);
    due.swap(posted());
    g_any_posted.store(false, std::memory_order_relaxed);
  }
  harvest_watched(scheduler);
  for (Posted& p : due) {
    if (p.probe) scheduler.report_probe(p.key, p.timings.front());
    else scheduler.report(p.key, p.timings);
  }
}

void report_pending_launches() {
  Runtime* rt = runtime_if_started();
  if (!rt || !rt->splitting) return;
  // An app that exits from a thread while another of its threads is inside
  // a libsplit call keeps the lock: its last reports are then only lost
  // measurements, never a hang at exit.
  std::unique_lock exec(rt->exec_mutex, std::try_to_lock);
  if (!exec.owns_lock()) return;
  harvest_split_reports(/*wait=*/true);
  deliver_reports();
  if (rt->attached_ns && rt->first_launch_ns >= rt->attached_ns) {
    const double first = (rt->first_launch_ns - rt->attached_ns) * 1e-9;
    const double last = (rt->last_launch_ns - rt->attached_ns) * 1e-9;
    rt->scheduler->set_launch_span(first, last);
    log_line(2, "launches enqueued from " + std::to_string(int(first * 1000)) + " to " +
                    std::to_string(int(last * 1000)) +
                    " ms after the app's first context (what the openings' verdict weighs)");
  }
  rt->scheduler->end_run();
}

}  // namespace libsplit
