#include "device_wait.h"

#include "real_api.h"
#include "runtime.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>

namespace libsplit {

namespace {

// Bit d: runtime device d was lost (devices past 63 are never marked: a
// remote device there keeps polling, which still returns once it is lost).
std::atomic<uint64_t> g_lost{0};

// Only nodes with a remote device pay for the look-ups below.
bool any_remote() {
  static const bool any = [] {
    for (const Device& d : runtime().devices)
      if (d.place == DevicePlace::remote) return true;
    return false;
  }();
  return any;
}

int device_of_queue(cl_command_queue dq) {
  cl_device_id id = nullptr;
  if (real().clGetCommandQueueInfo(dq, CL_QUEUE_DEVICE, sizeof id, &id, nullptr) != CL_SUCCESS) return -1;
  return runtime().device_index(id);
}

int device_of_event(cl_event e) {
  cl_command_queue dq = nullptr;
  if (real().clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof dq, &dq, nullptr) != CL_SUCCESS || !dq)
    return -1;
  return device_of_queue(dq);
}

bool is_remote(int d) {
  return d >= 0 && runtime().devices[unsigned(d)].place == DevicePlace::remote;
}

// Marks device d lost; says why, once.
void mark_lost(unsigned d, const char* why) {
  const uint64_t bit = d < 64 ? uint64_t(1) << d : 0;
  if (bit && !(g_lost.fetch_or(bit) & bit))
    fprintf(stderr, "libsplit: device %u '%s' %s: its commands fail with CL_DEVICE_NOT_AVAILABLE\n", d,
            runtime().devices[d].name.c_str(), why);
}

// Asks the driver whether d is still there.
bool check_available(unsigned d) {
  if (device_lost(d)) return false;
  // PoCL answers a device it disabled with CL_DEVICE_NOT_AVAILABLE for the
  // query itself (its clGetDeviceInfo checks first), not with CL_FALSE.
  cl_bool available = CL_FALSE;
  if (real().clGetDeviceInfo(runtime().devices[d].id, CL_DEVICE_AVAILABLE, sizeof available, &available,
                             nullptr) != CL_SUCCESS)
    available = CL_FALSE;
  if (!available) mark_lost(d, "is no longer available (its server gone?)");
  return available;
}

// Asks about every remote device (a few loads inside the driver): whether
// any of them is gone. The failure that told the app may have come from an
// enqueue (CL_DEVICE_NOT_AVAILABLE), with no wait of ours on that device.
bool any_remote_lost() {
  const std::vector<Device>& devices = runtime().devices;
  for (unsigned d = 0; d < devices.size(); ++d)
    if (devices[d].place == DevicePlace::remote) check_available(d);
  return g_lost.load(std::memory_order_acquire) != 0;
}

// A device still there may wait for a lost one: PoCL-Remote moves buffers
// between servers itself, so a command on a live server that reads what
// the dead one wrote never runs (seen at exit, after gemm's server 1 was
// killed). Once a device was lost, a wait on another one that sees no
// completion for this long counts that device lost too.
constexpr auto kStuckAfterLoss = std::chrono::seconds(5);

// The state a completion callback shares with the thread waiting for it
// (the callback may come after the waiter gave up: a lost device).
struct Waiter {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
};

void CL_CALLBACK wake_waiter(cl_event, cl_int, void* user) {
  std::unique_ptr<std::shared_ptr<Waiter>> waiter(static_cast<std::shared_ptr<Waiter>*>(user));
  {
    std::lock_guard lock((*waiter)->mutex);
    (*waiter)->done = true;
  }
  (*waiter)->cv.notify_all();
}

cl_int event_status(cl_event native) {
  cl_int status = CL_QUEUED;
  if (cl_int err = real().clGetEventInfo(native, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr))
    return err;
  return status;
}

// Waits for `native` to be final, woken by its completion callback (as soon
// as the driver's own wait would return), and asks every 10 ms whether
// device d is still there. Without a callback, polls at that pace.
cl_int wait_while_available(cl_event native, unsigned d) {
  auto waiter = std::make_shared<Waiter>();
  auto* ref = new std::shared_ptr<Waiter>(waiter);
  if (real().clSetEventCallback(native, CL_COMPLETE, wake_waiter, ref) != CL_SUCCESS) delete ref;
  std::chrono::steady_clock::time_point since_loss{};  // when this wait first saw a loss
  for (;;) {
    const cl_int status = event_status(native);
    if (status <= CL_COMPLETE) return status;
    if (!check_available(d)) return CL_DEVICE_NOT_AVAILABLE;
    if (any_remote_lost()) {
      const auto now = std::chrono::steady_clock::now();
      if (since_loss == std::chrono::steady_clock::time_point{}) since_loss = now;
      if (now - since_loss >= kStuckAfterLoss) {
        mark_lost(d, "made no progress for 5 s after another device was lost (waiting for its data?)");
        return CL_DEVICE_NOT_AVAILABLE;
      }
    }
    std::unique_lock lock(waiter->mutex);
    waiter->cv.wait_for(lock, std::chrono::milliseconds(10), [&] { return waiter->done; });
  }
}

using Enqueue = std::function<cl_int(cl_bool blocking, cl_event* event)>;

// A command on remote device d in two halves, so that several can be in
// flight before any is waited for (one network round trip for all). First:
// `enqueue` non-blocking with an event, queue q flushed; null where nothing
// is left to wait for, *err then says why (CL_SUCCESS: the driver gave no
// event).
cl_event start_on_remote(unsigned d, cl_command_queue q, const Enqueue& enqueue, cl_int* err) {
  *err = CL_SUCCESS;
  if (!check_available(d)) {
    *err = CL_DEVICE_NOT_AVAILABLE;
    return nullptr;
  }
  cl_event e = nullptr;
  const cl_int status = enqueue(CL_FALSE, &e);
  if (status != CL_SUCCESS || !e) {
    *err = check_available(d) ? status : CL_DEVICE_NOT_AVAILABLE;
    return nullptr;
  }
  real().clFlush(q);
  return e;
}

// Second: waited for while the device is there; CL_SUCCESS or the error.
cl_int finish_on_remote(unsigned d, cl_event e) {
  const cl_int status = wait_while_available(e, d);
  real().clReleaseEvent(e);
  return status < 0 ? status : CL_SUCCESS;
}

Enqueue marker_on(cl_command_queue q) {
  return [q](cl_bool, cl_event* e) { return real().clEnqueueMarkerWithWaitList(q, 0, nullptr, e); };
}

// Runs `enqueue(blocking, event)`: blocking on this host's devices, else
// non-blocking with an event waited for while the device is there.
cl_int blocking_on(unsigned d, const Enqueue& enqueue) {
  if (runtime().devices[d].place != DevicePlace::remote) return enqueue(CL_TRUE, nullptr);
  cl_int err = CL_SUCCESS;
  cl_event e = start_on_remote(d, runtime().devices[d].queue, enqueue, &err);
  return e ? finish_on_remote(d, e) : err;
}

Enqueue read_on(unsigned d, cl_mem mem, size_t offset, size_t size, void* ptr) {
  return [=](cl_bool blocking, cl_event* e) {
    return real().clEnqueueReadBuffer(runtime().devices[d].queue, mem, blocking, offset, size, ptr, 0, nullptr, e);
  };
}

}  // namespace

cl_int read_device_buffer(unsigned d, cl_mem mem, size_t offset, size_t size, void* ptr) {
  return blocking_on(d, read_on(d, mem, offset, size, ptr));
}

cl_int write_device_buffer(unsigned d, cl_mem mem, size_t offset, size_t size, const void* ptr) {
  return blocking_on(d, [&](cl_bool blocking, cl_event* e) {
    return real().clEnqueueWriteBuffer(runtime().devices[d].queue, mem, blocking, offset, size, ptr, 0,
                                       nullptr, e);
  });
}

cl_int read_device_buffers(const std::vector<DeviceRead>& reads) {
  // The remote reads go out together, then the local ones block, then the
  // remote ones are waited for: one network round trip for all of them, not
  // one per device (a histogram's partial copies from 4 remote H100).
  std::vector<cl_event> events(reads.size(), nullptr);
  cl_int first_error = CL_SUCCESS;
  auto note = [&](cl_int err) {
    if (first_error == CL_SUCCESS && err != CL_SUCCESS) first_error = err;
  };
  for (size_t i = 0; i < reads.size(); ++i) {
    const DeviceRead& r = reads[i];
    if (runtime().devices[r.device].place != DevicePlace::remote) continue;
    cl_int err = CL_SUCCESS;
    events[i] = start_on_remote(r.device, runtime().devices[r.device].queue,
                                read_on(r.device, r.mem, r.offset, r.size, r.ptr), &err);
    note(err);
  }
  for (const DeviceRead& r : reads)
    if (runtime().devices[r.device].place != DevicePlace::remote)
      note(read_device_buffer(r.device, r.mem, r.offset, r.size, r.ptr));
  for (size_t i = 0; i < reads.size(); ++i)
    if (events[i]) note(finish_on_remote(reads[i].device, events[i]));
  return first_error;
}

bool device_lost(unsigned d) { return d < 64 && (g_lost.load(std::memory_order_acquire) >> d & 1); }

bool any_device_lost() { return any_remote() && any_remote_lost(); }

cl_int finish_device_queue(cl_command_queue dq) {
  const int d = any_remote() ? device_of_queue(dq) : -1;
  if (!is_remote(d)) return real().clFinish(dq);
  // A marker completes after everything queued before it on this in-order queue.
  cl_int err = CL_SUCCESS;
  cl_event marker = start_on_remote(unsigned(d), dq, marker_on(dq), &err);
  return marker ? finish_on_remote(unsigned(d), marker) : err;
}

std::vector<cl_int> finish_device_queues(const std::vector<cl_command_queue>& queues) {
  // Every remote queue's marker goes out before any wait: a wait costs a
  // network round trip after the device's work, and waiting queue by queue
  // paid one per device (matmul on 4 H100 behind pocld: ~5.6 ms per launch).
  std::vector<cl_int> result(queues.size(), CL_SUCCESS);
  std::vector<cl_event> markers(queues.size(), nullptr);
  std::vector<int> device(queues.size(), -1);
  for (size_t i = 0; i < queues.size(); ++i) {
    device[i] = any_remote() && queues[i] ? device_of_queue(queues[i]) : -1;
    if (is_remote(device[i]))
      markers[i] = start_on_remote(unsigned(device[i]), queues[i], marker_on(queues[i]), &result[i]);
  }
  for (size_t i = 0; i < queues.size(); ++i)
    if (queues[i] && !is_remote(device[i])) result[i] = real().clFinish(queues[i]);
  for (size_t i = 0; i < queues.size(); ++i)
    if (markers[i]) result[i] = finish_on_remote(unsigned(device[i]), markers[i]);
  return result;
}

cl_int wait_device_event(cl_event native) {
  const int d = any_remote() ? device_of_event(native) : -1;
  if (!is_remote(d)) {
    real().clWaitForEvents(1, &native);
    cl_int status = CL_COMPLETE;
    real().clGetEventInfo(native, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    return status;
  }
  return wait_while_available(native, unsigned(d));
}

}  // namespace libsplit
