// Measurements that complete on driver threads (whole launches, probes) wait
// here until the launch thread hands them to the scheduler, in arrival
// order, before it plans the next launch: the scheduler never sees report()
// and plan() race, and a report may simply arrive a few launches late.
#include "launch.h"

#include <deque>
#include <mutex>

namespace libsplit {

namespace {

struct Posted {
  sched::LaunchKey key;
  std::vector<sched::ChunkTiming> timings;
  bool probe = false;
};

std::mutex g_mutex;
std::deque<Posted>& posted() {
  static auto* queue = new std::deque<Posted>;  // outlives exit-time callbacks
  return *queue;
}

}  // namespace

void post_report(const sched::LaunchKey& key, std::vector<sched::ChunkTiming> timings) {
  std::lock_guard lock(g_mutex);
  posted().push_back({key, std::move(timings), false});
}

void post_probe_report(const sched::LaunchKey& key, const sched::ChunkTiming& timing) {
  std::lock_guard lock(g_mutex);
  posted().push_back({key, {timing}, true});
}

void deliver_reports() {
  std::deque<Posted> due;
  {
    std::lock_guard lock(g_mutex);
    due.swap(posted());
  }
  sched::Scheduler& scheduler = *runtime().scheduler;
  for (Posted& p : due) {
    if (p.probe) scheduler.report_probe(p.key, p.timings.front());
    else scheduler.report(p.key, p.timings);
  }
}

}  // namespace libsplit
