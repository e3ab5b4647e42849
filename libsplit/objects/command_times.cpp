#include "command_times.h"

#include "completion.h"
#include "device_wait.h"
#include "real_api.h"
#include "runtime.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace libsplit {

namespace {

// The app event of the command being executed on this thread.
thread_local cl_event t_running = nullptr;

}  // namespace

void set_running_command(cl_event e) { t_running = e; }

bool running_command_observed() { return t_running && ref_count(t_running) > 1; }

namespace {

// host clock - device profiling clock, in ns: from the device timer, else
// (a driver without one, whose profiling clock is not the host's) from a
// marker's END bracketed by host times (the tightest of a few tries).
int64_t measure_device_offset(unsigned device) {
  const Device& dev = runtime().devices[device];
  cl_ulong device_now = 0, host_now = 0;
  cl_ulong before = now_ns();
  cl_int err = dev.cl_version >= 21 && !fault_injected("no_device_timer")
                   ? real().clGetDeviceAndHostTimer(dev.id, &device_now, &host_now)
                   : CL_INVALID_OPERATION;
  cl_ulong after = now_ns();
  if (err == CL_SUCCESS && device_now) return static_cast<int64_t>(before / 2 + after / 2 - device_now);
  check_may_wait("measuring a device clock with a marker");
  int64_t best = 0;
  cl_ulong best_width = ~cl_ulong(0);
  for (int i = 0; i < 5; ++i) {
    cl_event marker = nullptr;
    before = now_ns();
    if (real().clEnqueueMarkerWithWaitList(dev.queue, 0, nullptr, &marker) != CL_SUCCESS) break;
    if (finish_device_queue(dev.queue) != CL_SUCCESS) {
      real().clReleaseEvent(marker);
      break;
    }
    after = now_ns();
    cl_ulong end = 0;
    real().clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
    real().clReleaseEvent(marker);
    if (end && after - before < best_width) {
      best_width = after - before;
      best = static_cast<int64_t>(before / 2 + after / 2) - static_cast<int64_t>(end);
    }
  }
  return best;
}

// Offset host - device per device, measured once with the device timer (or
// a marker); read without a lock afterwards (profiled apps convert a few
// times per launch: a mutex and a map lookup each time showed in the
// per-launch cost).
struct DeviceOffset {
  std::atomic<bool> known{false};
  int64_t value = 0;
};

DeviceOffset& device_offset(unsigned device) {
  static std::unique_ptr<DeviceOffset[]> offsets(new DeviceOffset[runtime().devices.size()]);
  return offsets[device];
}

}  // namespace

std::optional<cl_ulong> measured_device_to_host_ns(unsigned device, cl_ulong device_ns) {
  const DeviceOffset& o = device_offset(device);
  if (!o.known.load(std::memory_order_acquire)) return std::nullopt;
  return static_cast<cl_ulong>(static_cast<int64_t>(device_ns) + o.value);
}

cl_ulong device_to_host_ns(unsigned device, cl_ulong device_ns) {
  static std::mutex mutex;
  DeviceOffset& o = device_offset(device);
  if (!o.known.load(std::memory_order_acquire)) {
    std::lock_guard lock(mutex);
    if (!o.known.load(std::memory_order_relaxed)) {
      o.value = measure_device_offset(device);
      o.known.store(true, std::memory_order_release);
    }
  }
  return *measured_device_to_host_ns(device, device_ns);
}

void report_device_span(unsigned device, cl_ulong device_start, cl_ulong device_end) {
  if (t_running && t_running->profiling && device_end) device_to_host_ns(device, 0);
  report_device_span(t_running, device, device_start, device_end);
}

void report_device_span(cl_event e, unsigned device, cl_ulong device_start, cl_ulong device_end) {
  if (!e || !e->profiling || !device_end || device_end < device_start) return;
  // Never measured here: this runs in driver callbacks, where enqueueing and
  // finishing a marker deadlocks against an app blocked on the same queue.
  auto start = measured_device_to_host_ns(device, device_start);
  auto end = measured_device_to_host_ns(device, device_end);
  if (!start || !end) return;
  std::lock_guard lock(e->mutex);
  e->device_start = e->device_end ? std::min(e->device_start, *start) : *start;
  e->device_end = std::max(e->device_end, *end);
}

}  // namespace libsplit
