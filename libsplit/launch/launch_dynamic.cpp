// Chunk schedulers (dynamic, hguided, autotune) hand out packages as devices
// become idle: the launch thread hands a chunk to each idle device (bringing
// the chunk's regions first), then polls for the first to finish. Only used
// when every region is known and the slices' writes do not overlap, so no
// merge can be needed; the written bytes are marked at the end.
#include "launch.h"

#include "command_times.h"
#include "executables.h"
#include "locality.h"
#include "real_api.h"

#include <chrono>
#include <sstream>
#include <thread>

namespace libsplit {

namespace {

struct Run {
  sched::Chunk chunk;
  double seconds = 0, transfer = 0;
  TransferStats moved;
};

struct DeviceWork {
  cl_kernel kernel = nullptr;
  std::vector<Run> runs;
  TransferStats moved;
  std::map<BufferStore*, IntervalSet> wrote;
  std::map<BufferStore*, IntervalSet> wrote_unknown;  // region not evaluable: whole buffer
};

struct Busy {
  Run run;
  cl_event event = nullptr;
};

// Each device's kernel with the launch's arguments; a status to return
// instead of running (an error, or the launch run whole on the app's device
// where a device's kernel cannot take the local size).
std::optional<cl_int> prepare_kernels(const Launch& L, std::vector<DeviceWork>& work) {
  for (unsigned d = 0; d < work.size(); ++d) {
    cl_int err = CL_SUCCESS;
    work[d].kernel = device_kernel(L.kernel, d, &err);
    if (!work[d].kernel) return err;
    if (!kernel_takes_local_size(L, work[d].kernel, d)) {
      log_line(2, "launch " + std::to_string(L.id) + ": the kernel on dev" + std::to_string(d) +
                      " cannot take the local size: whole on the app's device");
      return run_whole(L, L.queue->home, nullptr);
    }
    if ((err = set_device_args(work[d].kernel, L.args, d))) return err;
  }
  return std::nullopt;
}

// One launch handed out in packages. One host thread drives every device
// (PoCL is not safe with kernels enqueued from several threads at once).
class DynamicLaunch {
 public:
  DynamicLaunch(const Launch& L, sched::LaunchPlan& plan, std::vector<DeviceWork> work)
      : L_(L), plan_(plan), ndev_(unsigned(work.size())), work_(std::move(work)), busy_(ndev_),
        done_(ndev_, false), placement_(L, ndev_), last_size_(ndev_, 1) {}

  // Hands out packages until the plan is done; the first failure.
  cl_int run();
  // Marks the bytes each device wrote as valid there.
  void mark_written() const;
  // The scheduler's measurements, the trace rows, the locality record and
  // the log line.
  void report() const;

 private:
  std::optional<sched::Chunk> next_chunk(unsigned d);
  cl_int start_chunk(unsigned d, const sched::Chunk& c);
  cl_int start_idle_devices(cl_int failure);
  cl_int wait_for_one(cl_int failure);

  const Launch& L_;
  sched::LaunchPlan& plan_;
  const unsigned ndev_;
  std::vector<DeviceWork> work_;
  std::vector<std::optional<Busy>> busy_;
  std::vector<bool> done_;
  // The plan sizes the packages; with a recorded owner map their positions
  // come from it (locality.h). Groups left when the plan is done (a package
  // cut to the end of an owner's run) go in packages of the device's last size.
  OwnerPlacement placement_;
  std::vector<uint64_t> last_size_;
};

std::optional<sched::Chunk> DynamicLaunch::next_chunk(unsigned d) {
  if (!placement_.active()) return plan_.next(d);
  if (!placement_.remaining()) return std::nullopt;
  if (auto c = plan_.next(d)) last_size_[d] = std::max<uint64_t>(1, c->group_count);
  return placement_.place(d, last_size_[d], /*may_decline=*/true);
}

cl_int DynamicLaunch::start_chunk(unsigned d, const sched::Chunk& c) {
  Runtime& rt = runtime();
  DeviceWork& w = work_[d];
  std::map<BufferStore*, IntervalSet> needed;
  for (const BufferArg& b : L_.buffers) {
    BufferStore* st = b.mem->store.get();
    const Range whole = root_range(b.mem, 0, b.mem->size);
    if (b.reads) {
      if (auto reads = L_.slice_bytes(b, c, false))
        for (const Range& r : reads->ranges()) needed[st].add(r);
      else
        needed[st].add(whole);
    }
    if (b.writes) {
      if (auto writes = L_.slice_bytes(b, c, true)) {
        for (const Range& r : writes->ranges()) needed[st].add(r), w.wrote[st].add(r);
      } else {
        needed[st].add(whole);
        w.wrote_unknown[st].add(whole);
      }
    }
  }
  cl_ulong t0 = now_ns();
  TransferStats moved;
  for (auto& [st, set] : needed)
    for (const Range& r : set.ranges()) {
      if (cl_int err = stage_for_device(*st, d, r, &moved)) return err;
      if (cl_int err = ensure_device(*st, d, r, &moved)) return err;
    }
  w.moved.bytes_to_device += moved.bytes_to_device;
  w.moved.bytes_to_host += moved.bytes_to_host;
  Busy b;
  b.run.chunk = c;
  b.run.moved = moved;
  b.run.transfer = (now_ns() - t0) * 1e-9;
  if (cl_int err = launch_chunk(rt.devices[d].queue, w.kernel, L_, c, &b.event)) return err;
  real().clFlush(rt.devices[d].queue);
  busy_[d] = b;
  return CL_SUCCESS;
}

// A package to each idle device that has work left (stops at a failure).
cl_int DynamicLaunch::start_idle_devices(cl_int failure) {
  for (unsigned d = 0; d < ndev_ && !failure; ++d) {
    while (!busy_[d] && !done_[d]) {
      auto c = next_chunk(d);
      if (!c) {
        done_[d] = true;
      } else if (c->group_count) {
        c->device = d;
        failure = start_chunk(d, *c);
        break;
      }
    }
  }
  return failure;
}

// Waits for the first busy device to finish (short polls).
cl_int DynamicLaunch::wait_for_one(cl_int failure) {
  Runtime& rt = runtime();
  for (bool finished = false; !finished;) {
    for (unsigned d = 0; d < ndev_; ++d) {
      if (!busy_[d]) continue;
      const cl_int st = native_status(busy_[d]->event, CL_QUEUED);
      if (st > CL_COMPLETE) continue;
      finished = true;
      if (st < 0 && !failure) failure = st;
      cl_ulong start = 0, end = 0;
      busy_[d]->run.seconds = event_seconds(busy_[d]->event, &start, &end);
      report_device_span(d, start, end);
      real().clReleaseEvent(busy_[d]->event);
      cl_ulong t2 = now_ns();
      rt.tracer->span(L_.kernel->name, "kernel", d, t2 - (end - start), t2);
      work_[d].runs.push_back(busy_[d]->run);
      busy_[d].reset();
      if (failure) done_[d] = true;
    }
    if (!finished) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  return failure;
}

cl_int DynamicLaunch::run() {
  cl_int failure = CL_SUCCESS;
  for (;;) {
    failure = start_idle_devices(failure);
    bool any_busy = false;
    for (auto& b : busy_) any_busy |= b.has_value();
    if (!any_busy) break;
    failure = wait_for_one(failure);
    if (failure)
      for (unsigned d = 0; d < ndev_; ++d) done_[d] = true;
  }
  return failure;
}

void DynamicLaunch::mark_written() const {
  // A device whose region could not be evaluated owns its whole buffer
  // first, then the known ranges of the others take theirs.
  for (unsigned d = 0; d < ndev_; ++d)
    for (auto& [st, set] : work_[d].wrote_unknown)
      for (const Range& r : set.ranges()) wrote_device(*st, d, r);
  for (unsigned d = 0; d < ndev_; ++d)
    for (auto& [st, set] : work_[d].wrote)
      for (const Range& r : set.ranges()) wrote_device(*st, d, r);
}

void DynamicLaunch::report() const {
  Runtime& rt = runtime();
  std::vector<sched::ChunkTiming> timings;
  std::ostringstream line;
  unsigned used = 0;
  for (unsigned d = 0; d < ndev_; ++d) used += !work_[d].runs.empty();
  line << "launch " << L_.id << " " << L_.kernel->name << " dim " << L_.dim << " groups " << L_.total_groups
       << " split over " << used << " devices (dynamic)";
  for (unsigned d = 0; d < ndev_; ++d) {
    const DeviceWork& w = work_[d];
    if (w.runs.empty()) continue;
    double kern = 0, xfer = 0;
    uint64_t groups = 0;
    for (const Run& r : w.runs) {
      kern += r.seconds, xfer += r.transfer, groups += r.chunk.group_count;
      timings.push_back({r.chunk, r.seconds, r.transfer});
      SubKernelRow row = trace_row(L_, d, r.chunk, r.seconds, r.transfer, plan_.predicted_seconds(d));
      row.bytes_to_device = r.moved.bytes_to_device;
      row.bytes_to_host = r.moved.bytes_to_host;
      rt.tracer->row(row);
    }
    line << " | dev" << d << " " << groups << " groups in " << w.runs.size() << " chunks " << ms(kern)
         << " ms +" << ms(xfer) << " ms xfer " << w.moved.bytes_to_device << " B in";
  }
  rt.scheduler->report(L_.key, timings);
  uint64_t bytes = 0;
  double staging = 0;
  for (const DeviceWork& w : work_) {
    bytes += w.moved.bytes_to_device + w.moved.bytes_to_host;
    for (const Run& r : w.runs) staging += r.transfer;
  }
  record_split(L_, timings, bytes, staging);
  if (placement_.active()) line << " | placed on the groups each device ran last (owner computes)";
  log_line(1, line.str());
}

}  // namespace

cl_int run_dynamic(const Launch& L, sched::LaunchPlan& plan) {
  std::vector<DeviceWork> work(runtime().devices.size());
  if (std::optional<cl_int> status = prepare_kernels(L, work)) return *status;
  DynamicLaunch launch(L, plan, std::move(work));
  if (cl_int failure = launch.run()) return failure;
  launch.mark_written();
  launch.report();
  return CL_SUCCESS;
}

}  // namespace libsplit
