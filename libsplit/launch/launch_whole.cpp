// Whole on one device: what the app alone would do. The kernel goes straight
// to the device's in-order queue and the launch returns; the app's event
// completes from the device's own completion callback (completion.h), which
// also carries the measurement to the scheduler. No marker, no finish, no
// transfer unless the device lacks the data.
#include "launch.h"

#include "command_times.h"
#include "completion.h"
#include "device_idle.h"
#include "executables.h"
#include "image_data.h"
#include "real_api.h"

#include <sstream>

namespace libsplit {

namespace {

// Every byte the kernel may touch must be current on the device (written
// bytes it leaves alone included); *transfer: the seconds that took.
cl_int bring_arguments(const Launch& L, unsigned device, TransferStats* moved, double* transfer) {
  // The usual whole launch finds everything in place: no clock read then.
  bool in_place = L.images.empty();
  for (const BufferArg& b : L.buffers)
    in_place = in_place && device_holds(*b.mem->store, device, root_range(b.mem, 0, b.mem->size));
  const cl_ulong t0 = in_place ? 0 : now_ns();
  if (!in_place) {
    for (const BufferArg& b : L.buffers)
      if (cl_int err = stage_for_device(*b.mem->store, device, root_range(b.mem, 0, b.mem->size), moved))
        return err;
    for (const BufferArg& b : L.buffers)
      if (cl_int err = ensure_device(*b.mem->store, device, root_range(b.mem, 0, b.mem->size), moved))
        return err;
  }
  for (const ImageArg& img : L.images)
    if (cl_int err = ensure_image_device(*img.mem->image, device)) return err;
  *transfer = in_place ? 0.0 : (now_ns() - t0) * 1e-9;
  return CL_SUCCESS;
}

// The app's arguments (and exec info) on dk, the kernel that runs the
// launch on `device`.
cl_int set_launch_args(cl_kernel dk, const Launch& L, unsigned device) {
  if (cl_int err = set_device_args(dk, L.args, device)) return err;
  for (const auto& [param, bytes] : L.exec_info)
    if (cl_int err = real().clSetKernelExecInfo(dk, param, bytes.size(), bytes.data())) return err;
  return CL_SUCCESS;
}

// The device now holds the only current copy of all the launch may write.
void wrote_all_on(const Launch& L, unsigned device) {
  for (const BufferArg& b : L.buffers)
    if (b.writes) wrote_device(*b.mem->store, device, root_range(b.mem, 0, b.mem->size));
  for (const ImageArg& img : L.images)
    if (img.writes) wrote_image_device(*img.mem->image, device);
}

// The launch in two halves on its own device, one after the other on its
// in-order queue (LaunchPlan::halves_on_home): the same work-items, through
// the partition-ready kernel's offsets, both halves timed for the scheduler.
// *ran: false when nothing was enqueued (the caller runs it whole instead).
cl_int run_halves(const Launch& L, unsigned device, double transfer, uint64_t bytes_in, bool* ran) {
  Runtime& rt = runtime();
  *ran = false;
  cl_int err = CL_SUCCESS;
  cl_kernel dk = device_kernel(L.kernel, device, &err);
  if (!dk || !kernel_takes_local_size(L, dk, device) || set_launch_args(dk, L, device) != CL_SUCCESS)
    return CL_SUCCESS;
  const uint64_t half = L.total_groups / 2;
  const sched::Chunk first{device, 0, half}, second{device, half, L.total_groups - half};
  cl_command_queue dq = rt.devices[device].queue;
  cl_event first_done = nullptr, second_done = nullptr;
  if (launch_chunk(dq, dk, L, first, &first_done) != CL_SUCCESS) return CL_SUCCESS;
  *ran = true;
  // The first half ran: running the launch again would run it twice (an
  // accumulating kernel). The app gets the error, as from a failed launch.
  if ((err = launch_chunk(dq, dk, L, second, &second_done))) {
    real().clReleaseEvent(first_done);
    return err;
  }
  wrote_all_on(L, device);
  real().clFlush(dq);
  if ((L.queue->properties & CL_QUEUE_PROFILING_ENABLE) && running_command_observed())
    device_to_host_ns(device, 0);  // measures the clock offset once, here
  const bool traced = rt.tracer->enabled();
  SubKernelRow rows[2];
  if (traced) rows[0] = trace_row(L, device, first, 0, transfer, 0), rows[1] = trace_row(L, device, second, 0, 0, 0);
  complete_after(dq, second_done, [key = L.key, id = L.id, kernel = L.kernel->name, device, first, second,
                                   first_done, transfer, bytes_in, traced, rows](cl_event e, cl_event app) mutable {
    cl_ulong start = 0, mid = 0, end = 0;
    const double a = apply_slowdown(device, id, kernel, event_seconds(first_done, &start, &mid));
    const double b = apply_slowdown(device, id, kernel, event_seconds(e, &mid, &end));
    real().clReleaseEvent(first_done);
    report_device_span(app, device, start, end);
    const double idle = idle_unless_moved(device, id, start, end, transfer);
    post_report(key, {sched::ChunkTiming{first, a, transfer, idle}, sched::ChunkTiming{second, b, 0, -1}});
    if (traced) {
      Runtime& rt = runtime();
      const cl_ulong now = now_ns();
      rt.tracer->span(kernel, "kernel", device, now - (end - start), now);
      rows[0].ms_kernel = a * 1e3, rows[1].ms_kernel = b * 1e3;
      rt.tracer->row(rows[0]);
      rt.tracer->row(rows[1]);
    }
    log_line(1, "launch " + std::to_string(id) + " " + kernel + " groups " +
                    std::to_string(first.group_count + second.group_count) + " whole in two halves on dev" +
                    std::to_string(device) + " (does half the work take half the time?) | " +
                    std::to_string(first.group_count) + " groups " + ms(a) + " ms, " +
                    std::to_string(second.group_count) + " groups " + ms(b) + " ms +" + ms(transfer) + " ms xfer " +
                    std::to_string(bytes_in) + " B in");
  });
  return CL_SUCCESS;
}

}  // namespace

cl_int run_whole(const Launch& L, unsigned device, sched::LaunchPlan* plan) {
  Runtime& rt = runtime();
  TransferStats moved;
  double transfer = 0;
  if (cl_int err = bring_arguments(L, device, &moved, &transfer)) return err;
  // In halves only where they run the same work-items as whole would: the
  // partition-ready kernel, a uniform NDRange, the local size the app gave.
  if (plan && plan->halves_on_home() && device == L.queue->home && L.compiled && L.spec.uniform &&
      !L.spec.local_chosen && L.total_groups >= 2) {
    bool ran = false;
    cl_int err = run_halves(L, device, transfer, moved.bytes_to_device, &ran);
    if (ran) return err;
  }

  cl_int err = CL_SUCCESS;
  bool original = false;
  cl_kernel dk = whole_kernel(L.kernel, device, &err, &original);
  if (!dk) return err;
  if ((err = set_launch_args(dk, L, device))) return err;
  const sched::Chunk chunk{device, 0, L.total_groups};
  cl_command_queue dq = rt.devices[device].queue;
  // What the app or libsplit needs to see of the kernel's end decides how
  // much is made of it: nothing (ordered on the device queue), a polled
  // native event (the scheduler's measurement), or a driver callback
  // (profiled app queues: device times on the app's event; trace and log).
  const bool measure = plan != nullptr && plan->wants_report();
  const bool traced = rt.tracer->enabled() || rt.controls.log >= 1;
  // A profiled queue's device times go on the app's event, if anyone can
  // read them.
  const bool profiled = (L.queue->properties & CL_QUEUE_PROFILING_ENABLE) && running_command_observed();
  const bool callback = traced || profiled || injected_slowdown(device, L.id, L.kernel->name) != 1.0;
  cl_event done = nullptr;
  if ((err = launch_chunk(dq, dk, L, chunk, measure || callback ? &done : nullptr, original))) return err;
  wrote_all_on(L, device);
  real().clFlush(dq);
  if (!callback) {
    if (measure) watch_whole_launch(L.key, L.id, device, L.total_groups, done, transfer);
    note_device_work(dq);
    return CL_SUCCESS;
  }

  if (profiled) device_to_host_ns(device, 0);  // measures the clock offset once, here
  SubKernelRow row;
  std::ostringstream head;
  if (traced) {
    row = trace_row(L, device, chunk, 0, transfer, plan ? plan->predicted_seconds(device) : 0);
    row.bytes_to_device = moved.bytes_to_device;
    row.bytes_to_host = moved.bytes_to_host;
    head << "launch " << L.id << " " << L.kernel->name << " dim " << L.dim << " groups " << L.total_groups
         << " whole (" << (L.why_whole.empty() ? "scheduler" : L.why_whole) << ")";
  } else {
    row.device = device, row.launch = L.id, row.total_groups = L.total_groups, row.kernel = L.kernel->name;
  }
  complete_after(dq, done, [key = L.key, row, head = head.str(), measure, traced, bytes = moved.bytes_to_device,
                        transfer](cl_event e, cl_event app) mutable {
    Runtime& rt = runtime();
    cl_ulong start = 0, end = 0;
    const double seconds = apply_slowdown(row.device, row.launch, row.kernel, event_seconds(e, &start, &end));
    report_device_span(app, row.device, start, end);
    const double idle = idle_unless_moved(row.device, row.launch, start, end, transfer);
    if (measure) post_report(key, {sched::ChunkTiming{{row.device, 0, row.total_groups}, seconds, transfer, idle}});
    if (!traced) return;
    const cl_ulong now = now_ns();
    rt.tracer->span(row.kernel, "kernel", row.device, now - (end - start), now);
    row.ms_kernel = seconds * 1e3;
    rt.tracer->row(row);
    log_line(1, head + " | dev" + std::to_string(row.device) + " " + std::to_string(row.groups) +
                    " groups " + ms(seconds) + " ms +" + ms(transfer) + " ms xfer " +
                    std::to_string(bytes) + " B in");
  });
  return CL_SUCCESS;
}

}  // namespace libsplit
