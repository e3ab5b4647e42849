#include "split_outcome.h"

#include "command_times.h"
#include "device_idle.h"
#include "device_wait.h"
#include "real_api.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <sstream>

namespace libsplit {

namespace {

// What the split launch cost the app beyond its busiest device (gathering
// on the host, enqueueing, waiting for each device, merging), added to every
// device's first timing: the scheduler compares a split's makespan with the
// whole launch's kernel time, and on 4 H100 nbody's quarter launches, about
// as long as the whole one (one wave), split at a loss of 0.8 ms a launch.
void charge_host_overhead(std::vector<sched::ChunkTiming>& timings, double host_seconds) {
  std::map<unsigned, double> busy;
  for (const sched::ChunkTiming& t : timings) busy[t.chunk.device] += t.seconds + t.transfer_seconds;
  double busiest = 0;
  for (const auto& [d, b] : busy) busiest = std::max(busiest, b);
  const double overhead = host_seconds - busiest;
  if (!(overhead > 0)) return;
  std::set<unsigned> charged;
  for (sched::ChunkTiming& t : timings)
    if (charged.insert(t.chunk.device).second) t.transfer_seconds += overhead;
}

cl_ulong end_of(cl_event e) {
  cl_ulong t = 0;
  if (e) real().clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr);
  return t;
}

}  // namespace

void end_host_time(SplitOutcome& o, cl_ulong host_start, uint64_t epoch_at_start) {
  static uint64_t previous = 0;  // the epoch as the previous split launch ended
  const uint64_t now = runtime().opening_epoch.load(std::memory_order_acquire);
  o.host_seconds = (now_ns() - host_start) * 1e-9;
  o.during_opening = beside_opening(previous, epoch_at_start, now);
  previous = now;
  if (o.during_opening) o.notes += " | beside an opening (host and idle time not judged)";
}

cl_int read_split_times(SplitOutcome& o) {
  Runtime& rt = runtime();
  cl_int failed = CL_SUCCESS;
  for (unsigned d : o.used) {
    if (!o.write_begin[d] && !o.runs[d].front().event) continue;  // read before
    const cl_ulong w0 = end_of(o.write_begin[d]), w1 = end_of(o.write_end[d]);
    for (cl_event* e : {&o.write_begin[d], &o.write_end[d]})
      if (*e) real().clReleaseEvent(*e), *e = nullptr;
    o.transfer_seconds[d] = w1 > w0 ? (w1 - w0) * 1e-9 : 0;
    for (ChunkRun& r : o.runs[d]) {
      if (!r.event) continue;
      const cl_int status = r.final_status <= CL_COMPLETE ? r.final_status : native_status(r.event);
      // An asynchronous split has returned already: a sub-kernel that
      // failed on its device is said here; the app's event ends with the
      // device queue's markers, whose status the driver decides (what a
      // failed sub-launch should do is issue 24's fault injection).
      if (status < 0) {
        failed = status;
        log_line(1, "launch " + std::to_string(o.id) + " " + o.kernel + ": its sub-kernel on dev" +
                        std::to_string(d) + " failed (" + std::to_string(status) + ")");
      }
      if (r.end) {  // completed() read its end
        real().clGetEventProfilingInfo(r.event, CL_PROFILING_COMMAND_START, sizeof r.start, &r.start, nullptr);
        r.seconds = o.slowdown[d] * (r.end > r.start ? (r.end - r.start) * 1e-9 : 0);
      } else {
        r.seconds = o.slowdown[d] * event_seconds(r.event, &r.start, &r.end);
      }
      real().clReleaseEvent(r.event);
      r.event = nullptr;
    }
    o.idle_before[d] = device_idle().ran(d, o.id, o.runs[d].front().start, o.runs[d].back().end);
    if (!rt.tracer->enabled()) continue;
    for (const ChunkRun& r : o.runs[d])
      if (r.end > r.start) rt.tracer->span(o.kernel, "kernel", d, device_to_host_ns(d, r.start), device_to_host_ns(d, r.end));
    if (w1 > w0) rt.tracer->span("transfer " + o.kernel, "transfer", d, device_to_host_ns(d, w0), device_to_host_ns(d, w1));
  }
  // A launch that moved data kept its devices idle for the moves, which are
  // priced as such (gemm's first split on 2 H100 staged 40 MB: taken for
  // host round trip, the split was judged lost): its idle time says nothing.
  // Nor does that of a launch beside an opening (the driver stalled the host).
  bool moved = o.gather_seconds > 20e-6 || o.during_opening;
  for (unsigned d : o.used) moved = moved || o.moved[d].bytes_to_device > 0;
  if (moved)
    for (unsigned d : o.used) o.idle_before[d] = -1;
  return failed;
}

namespace {

// The start of a split launch's log line: which launch, and how it ran.
std::string log_head(const SplitOutcome& o) {
  using std::to_string;
  return "launch " + to_string(o.id) + " " + o.kernel + " dim " + to_string(o.dim) + " groups " +
         to_string(o.total_groups) +
         (o.used.size() < 2 ? std::string(" whole (scheduler)") : " split over " + to_string(o.used.size()) + " devices");
}

void log_and_trace(const SplitOutcome& o) {
  Runtime& rt = runtime();
  if (!rt.tracer->enabled() && rt.controls.log < 1) return;
  std::ostringstream line;
  line << log_head(o);
  for (unsigned d : o.used) {
    double kern = 0;
    uint64_t groups = 0;
    for (const ChunkRun& r : o.runs[d]) kern += r.seconds, groups += r.chunk.group_count;
    const uint64_t back = o.moved[d].bytes_to_host + o.read_back[d];
    line << " | dev" << d << " " << groups << " groups " << ms(kern) << " ms +" << ms(o.transfer_seconds[d])
         << " ms xfer " << o.moved[d].bytes_to_device << " B in";
    if (back) line << " " << back << " B back";
    for (const ChunkRun& r : o.runs[d]) {
      const bool first = &r == &o.runs[d].front();
      SubKernelRow row = trace_row(o.id, o.kernel, o.dim, o.total_groups, d, r.chunk, r.seconds,
                                   first ? o.transfer_seconds[d] : 0, o.predicted[d]);
      if (first) {
        row.bytes_to_device = o.moved[d].bytes_to_device, row.bytes_to_host = back;
        row.ms_gather = o.gather_seconds_per_device[d] * 1e3;
        if (d == o.used.front()) row.racy_units = o.racy;
      }
      rt.tracer->row(row);
    }
  }
  line << o.notes;
  log_line(1, line.str());
}

}  // namespace

bool first_split_of_shape(const sched::LaunchKey& k) {
  static std::map<sched::LaunchKey, std::set<unsigned>, sched::ShapeLess> seen;  // homes by shape
  return seen[k].insert(k.home).second;
}

bool times_read(const sched::LaunchPlan& plan, bool profiled) {
  // LIBSPLIT_INJECT_FAULTS=untimed_splits: every split taken as settled.
  static const bool untimed_injected = fault_injected("untimed_splits");
  return (plan.wants_report() && !untimed_injected) || profiled || runtime().tracer->enabled();
}

void log_untimed_split(const SplitOutcome& o, const std::vector<std::vector<ChunkRun>>& runs) {
  if (runtime().controls.log < 1) return;
  using std::to_string;  // appends, not a stream: this runs at every untimed launch
  std::string line = log_head(o);
  for (unsigned d : o.used) {
    uint64_t groups = 0;
    for (const ChunkRun& r : runs[d]) groups += r.chunk.group_count;
    line += " | dev" + to_string(d) + " " + to_string(groups) + " groups xfer " + to_string(o.moved[d].bytes_to_device) +
            " B in";
    if (o.moved[d].bytes_to_host) line += " " + to_string(o.moved[d].bytes_to_host) + " B back";
  }
  line += " | times not read (a settled split: the scheduler measures only some of its launches)";
  log_line(1, line);
}

namespace {

// A sub-kernel's end time is there only once it completed (its queue
// profiles; the spec answers CL_PROFILING_INFO_NOT_AVAILABLE before): one
// query tells both, where a status query and then the end's were two (each
// ~1.3 us of the app's thread on NVIDIA). One that failed never answers:
// its status is read when the outcome is waited for (kMaxDeferred, exit).
bool completed(SplitOutcome& o) {
  for (unsigned d : o.used)
    for (ChunkRun& r : o.runs[d]) {
      if (!r.event || r.final_status <= CL_COMPLETE) continue;
      cl_ulong end = 0;
      if (real().clGetEventProfilingInfo(r.event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) != CL_SUCCESS ||
          end == 0)
        return false;
      r.final_status = CL_COMPLETE;
      r.end = end;
    }
  return true;
}

// One device at a time: a wait list may not mix contexts (Oclgrind crashed).
void wait_for(const SplitOutcome& o) {
  for (unsigned d : o.used)
    if (cl_event last = o.runs[d].back().event) wait_device_event(last);
}

// Deferred outcomes, oldest first.
std::deque<std::unique_ptr<SplitOutcome>>& deferred() {
  static auto* q = new std::deque<std::unique_ptr<SplitOutcome>>;  // used at exit
  return *q;
}

// An app that enqueues without ever waiting keeps at most this many
// outcomes (and their events) alive: beyond, the oldest is waited for.
constexpr size_t kMaxDeferred = 64;

}  // namespace

void report_split(SplitOutcome& o) {
  Runtime& rt = runtime();
  read_split_times(o);
  std::vector<sched::ChunkTiming> timings;
  for (unsigned d : o.used)
    for (const ChunkRun& r : o.runs[d]) {
      const bool first = &r == &o.runs[d].front();
      timings.push_back({r.chunk, r.seconds, first ? o.transfer_seconds[d] : 0.0, first ? o.idle_before[d] : -1.0});
    }
  {
    uint64_t bytes = 0;
    double writes = 0;
    for (unsigned d : o.used)
      bytes += o.moved[d].bytes_to_device + o.moved[d].bytes_to_host,
          writes = std::max(writes, o.transfer_seconds[d]);
    record_split_times(o.record, timings, bytes, o.gather_seconds + writes);
  }
  // The gather before the kernels counts from the shape's second split
  // launch on, where it recurs (nbody's all-gather of positions on 4 H100:
  // the split cost more than it gained). A first split launch gathers once
  // what owner computes then keeps (gemm: 88 MB), priced by the split gate.
  if (!o.during_opening) charge_host_overhead(timings, o.host_seconds - (o.first_split ? o.gather_seconds : 0.0));
  rt.scheduler->report(o.key, timings);
  log_and_trace(o);
}

void defer_split_report(std::unique_ptr<SplitOutcome> outcome) {
  auto& q = deferred();
  q.push_back(std::move(outcome));
  if (q.size() > kMaxDeferred) {
    wait_for(*q.front());
    report_split(*q.front());
    q.pop_front();
  }
}

void harvest_split_reports(bool wait) {
  auto& q = deferred();
  while (!q.empty()) {
    if (wait) wait_for(*q.front());
    else if (!completed(*q.front())) return;
    report_split(*q.front());
    q.pop_front();
  }
}

}  // namespace libsplit
