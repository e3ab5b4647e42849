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

cl_int run_dynamic(const Launch& L, sched::LaunchPlan& plan) {
  Runtime& rt = runtime();
  const unsigned ndev = static_cast<unsigned>(rt.devices.size());
  const std::string& name = L.kernel->name;
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
  std::vector<DeviceWork> work(ndev);
  for (unsigned d = 0; d < ndev; ++d) {
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
  // One host thread drives every device (PoCL is not safe with kernels
  // enqueued from several threads at once).
  struct Busy {
    Run run;
    cl_event event = nullptr;
  };
  std::vector<std::optional<Busy>> busy(ndev);
  std::vector<bool> done(ndev, false);
  auto start_chunk = [&](unsigned d, const sched::Chunk& c) -> cl_int {
    DeviceWork& w = work[d];
    std::map<BufferStore*, IntervalSet> needed;
    for (const BufferArg& b : L.buffers) {
      BufferStore* st = b.mem->store.get();
      const Range whole = root_range(b.mem, 0, b.mem->size);
      if (b.reads) {
        if (auto reads = L.slice_bytes(b, c, false))
          for (const Range& r : reads->ranges()) needed[st].add(r);
        else
          needed[st].add(whole);
      }
      if (b.writes) {
        if (auto writes = L.slice_bytes(b, c, true)) {
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
    if (cl_int err = launch_chunk(rt.devices[d].queue, w.kernel, L, c, &b.event)) return err;
    real().clFlush(rt.devices[d].queue);
    busy[d] = b;
    return CL_SUCCESS;
  };
  // The plan sizes the packages; with a recorded owner map their positions
  // come from it (locality.h). Groups left when the plan is done (a package
  // cut to the end of an owner's run) go in packages of the device's last size.
  OwnerPlacement placement(L, ndev);
  std::vector<uint64_t> last_size(ndev, 1);
  auto next_chunk = [&](unsigned d) -> std::optional<sched::Chunk> {
    if (!placement.active()) return plan.next(d);
    if (!placement.remaining()) return std::nullopt;
    if (auto c = plan.next(d)) last_size[d] = std::max<uint64_t>(1, c->group_count);
    return placement.place(d, last_size[d], /*may_decline=*/true);
  };
  cl_int failure = CL_SUCCESS;
  for (;;) {
    for (unsigned d = 0; d < ndev && !failure; ++d) {
      while (!busy[d] && !done[d]) {
        auto c = next_chunk(d);
        if (!c) {
          done[d] = true;
        } else if (c->group_count) {
          c->device = d;
          failure = start_chunk(d, *c);
          break;
        }
      }
    }
    bool any_busy = false;
    for (auto& b : busy) any_busy |= b.has_value();
    if (!any_busy) break;
    // Wait for the first busy device to finish (short polls).
    for (bool finished = false; !finished;) {
      for (unsigned d = 0; d < ndev; ++d) {
        if (!busy[d]) continue;
        const cl_int st = native_status(busy[d]->event, CL_QUEUED);
        if (st > CL_COMPLETE) continue;
        finished = true;
        if (st < 0 && !failure) failure = st;
        cl_ulong start = 0, end = 0;
        busy[d]->run.seconds = event_seconds(busy[d]->event, &start, &end);
        report_device_span(d, start, end);
        real().clReleaseEvent(busy[d]->event);
        cl_ulong t2 = now_ns();
        rt.tracer->span(name, "kernel", d, t2 - (end - start), t2);
        work[d].runs.push_back(busy[d]->run);
        busy[d].reset();
        if (failure) done[d] = true;
      }
      if (!finished) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    if (failure)
      for (unsigned d = 0; d < ndev; ++d) done[d] = true;
  }
  if (failure) return failure;

  // A device whose region could not be evaluated owns its whole buffer
  // first, then the known ranges of the others take theirs.
  for (unsigned d = 0; d < ndev; ++d)
    for (auto& [st, set] : work[d].wrote_unknown)
      for (const Range& r : set.ranges()) wrote_device(*st, d, r);
  for (unsigned d = 0; d < ndev; ++d)
    for (auto& [st, set] : work[d].wrote)
      for (const Range& r : set.ranges()) wrote_device(*st, d, r);

  std::vector<sched::ChunkTiming> timings;
  std::ostringstream line;
  unsigned used = 0;
  for (unsigned d = 0; d < ndev; ++d) used += !work[d].runs.empty();
  line << "launch " << L.id << " " << name << " dim " << L.dim << " groups " << L.total_groups
       << " split over " << used << " devices (dynamic)";
  for (unsigned d = 0; d < ndev; ++d) {
    DeviceWork& w = work[d];
    if (w.runs.empty()) continue;
    double kern = 0, xfer = 0;
    uint64_t groups = 0;
    for (const Run& r : w.runs) {
      kern += r.seconds, xfer += r.transfer, groups += r.chunk.group_count;
      timings.push_back({r.chunk, r.seconds, r.transfer});
      SubKernelRow row = trace_row(L, d, r.chunk, r.seconds, r.transfer, plan.predicted_seconds(d));
      row.bytes_to_device = r.moved.bytes_to_device;
      row.bytes_to_host = r.moved.bytes_to_host;
      rt.tracer->row(row);
    }
    line << " | dev" << d << " " << groups << " groups in " << w.runs.size() << " chunks " << ms(kern)
         << " ms +" << ms(xfer) << " ms xfer " << w.moved.bytes_to_device << " B in";
  }
  rt.scheduler->report(L.key, timings);
  uint64_t bytes = 0;
  double staging = 0;
  for (const DeviceWork& w : work) {
    bytes += w.moved.bytes_to_device + w.moved.bytes_to_host;
    for (const Run& r : w.runs) staging += r.transfer;
  }
  record_split(L, timings, bytes, staging);
  if (placement.active()) line << " | placed on the groups each device ran last (owner computes)";
  log_line(1, line.str());
  return CL_SUCCESS;
}

}  // namespace libsplit
