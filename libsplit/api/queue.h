// The enqueue machinery shared by every clEnqueue* implementation.
#pragma once

#include "objects.h"

#include <functional>
#include <optional>

namespace libsplit {

// CL_SUCCESS or the error a native runtime returns for this queue / wait list.
cl_int check_queue_and_waits(cl_command_queue q, cl_uint num_waits, const cl_event* waits);

// Queues `run` on q after `waits`; hands the event to the app when out_event
// is non-null; blocks until completion when `blocking`. run() executes on the
// queue's worker under the runtime's exec lock and returns CL_SUCCESS or an
// error (the event then ends with that negative status).
cl_int enqueue(cl_command_queue q, cl_command_type type, cl_uint num_waits, const cl_event* waits,
               cl_event* out_event, bool blocking, std::function<cl_int()> run);

// Profiling: called by a command while it runs (on the thread running it)
// for each piece of device work, with the device's own profiling times
// (CL_PROFILING_COMMAND_START / END of the sub-launch on runtime device
// `device`). The app's event then reports START at the earliest start and
// END at the latest end, converted to the host clock; a command that reports
// nothing gets START/END around its host-side execution.
void report_device_span(unsigned device, cl_ulong device_start, cl_ulong device_end);
// The same for app event `e` (from a device completion callback, which must
// never wait on a queue): reports nothing unless the device's clock offset
// was measured before (device_to_host_ns on a launch thread).
void report_device_span(cl_event e, unsigned device, cl_ulong device_start, cl_ulong device_end);

// Whether anyone but libsplit holds the app event of the command running on
// this thread (the app asked for it, or a wait list holds it): when nobody
// does, its profiling times can never be read.
bool running_command_observed();

// A device's profiling time on the host clock (now_ns()). The first call per
// device measures the clock offset, which may enqueue a marker on the
// device's queue and finish it: launch threads only, never a callback.
cl_ulong device_to_host_ns(unsigned device, cl_ulong device_ns);
// The same, nullopt while the offset is not measured (safe anywhere).
std::optional<cl_ulong> measured_device_to_host_ns(unsigned device, cl_ulong device_ns);

// Keeps objects alive while a command is queued.
struct Retained {
  std::vector<cl_mem> mems;
  std::vector<cl_kernel> kernels;
  std::vector<cl_sampler> samplers;
  Retained() = default;
  Retained(const Retained&) = delete;
  Retained& operator=(const Retained&) = delete;
  void add(cl_mem m) {
    if (m) retain(m), mems.push_back(m);
  }
  void add(cl_kernel k) { retain(k), kernels.push_back(k); }
  void add(cl_sampler s) { retain(s), samplers.push_back(s); }
  ~Retained() {
    for (cl_mem m : mems) release(m);
    for (cl_sampler s : samplers) release(s);
    for (cl_kernel k : kernels) release(k);
  }
};

}  // namespace libsplit
