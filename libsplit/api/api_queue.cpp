// Command queues, events, markers, barriers, flush and finish.
#include "api.h"
#include "app_host_memory.h"
#include "command_times.h"
#include "completion.h"
#include "deferred_writes.h"
#include "device_wait.h"
#include "queue.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

namespace libsplit {

namespace {

// Once a command of an in-order queue failed (a driver call of its run
// failed: a sub-launch, a move between devices), the commands after it would
// run on data it never produced: they fail too, with
// CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, so that a blocking read after
// a failed split launch reports the failure instead of handing the app stale
// bytes with CL_SUCCESS (the fault-injection suite found it).
cl_int run_command(cl_command_queue q, cl_event e, std::function<cl_int()>& run) {
  const bool in_order = !(q->properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  if (in_order && q->command_failed.load(std::memory_order_acquire))
    return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  // A lost remote device (its server died) may hold the only copy of data
  // any command needs, and PoCL's synchronous calls to a server caught in
  // the loss never return (clCreateKernel hung here): every command fails,
  // as the driver's own enqueues on that device do.
  if (any_device_lost()) {
    if (in_order) q->command_failed.store(true, std::memory_order_release);
    return CL_DEVICE_NOT_AVAILABLE;
  }
  set_running_command(e);
  cl_int status = run ? run() : CL_SUCCESS;
  set_running_command(nullptr);
  if (status < 0 && in_order) q->command_failed.store(true, std::memory_order_release);
  return status;
}

}  // namespace

namespace {

void worker_loop(cl_command_queue q) {
  for (;;) {
    _cl_command_queue::Command c;
    {
      std::unique_lock lock(q->mutex);
      q->cv.wait(lock, [&] { return q->stopping || !q->commands.empty(); });
      if (q->commands.empty()) return;
      c = std::move(q->commands.front());
      q->commands.pop_front();
    }
    bool wait_failed = false;
    for (cl_event w : c.waits)
      if (wait_event(w) < 0) wait_failed = true;
    set_event_status(c.event, CL_SUBMITTED);
    cl_int status;
    if (wait_failed) {
      status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    } else {
      set_event_status(c.event, CL_RUNNING);
      std::lock_guard exec(runtime().exec_mutex);
      status = run_command(q, c.event, c.run);
    }
    c.run = nullptr;  // drops retained objects
    finish_command(q, c.event, status);
    for (cl_event w : c.waits) release(w);
    {
      std::lock_guard lock(q->mutex);
      --q->in_flight;
    }
    q->idle_cv.notify_all();
  }
}

cl_command_queue create_queue(cl_context ctx, cl_device_id device,
                              cl_command_queue_properties props,
                              std::vector<cl_queue_properties> array, cl_int* err) {
  auto fail = [&](cl_int e) -> cl_command_queue {
    if (err) *err = e;
    return nullptr;
  };
  if (!valid(ctx)) return fail(CL_INVALID_CONTEXT);
  bool in_ctx = false;
  for (cl_device_id d : ctx->devices) in_ctx |= d == device;
  if (!in_ctx) return fail(CL_INVALID_DEVICE);
  const cl_command_queue_properties known =
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
  if (props & ~known) return fail(CL_INVALID_VALUE);
  auto* q = new _cl_command_queue;
  q->context = ctx;
  retain(ctx);
  q->device = device;
  int home = runtime().device_index(device);
  q->home = home < 0 ? 0 : static_cast<unsigned>(home);
  q->properties = props;
  q->properties_array = std::move(array);
  q->worker = std::thread(worker_loop, q);
  if (err) *err = CL_SUCCESS;
  return q;
}

}  // namespace

cl_int check_queue_and_waits(cl_command_queue q, cl_uint num_waits, const cl_event* waits) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if ((num_waits > 0) != (waits != nullptr)) return CL_INVALID_EVENT_WAIT_LIST;
  for (cl_uint i = 0; i < num_waits; ++i) {
    if (!valid(waits[i])) return CL_INVALID_EVENT_WAIT_LIST;
    if (waits[i]->context != q->context) return CL_INVALID_CONTEXT;
  }
  return CL_SUCCESS;
}

namespace {

bool complete_ok(cl_event e) {
  std::lock_guard lock(e->mutex);
  return e->status == CL_COMPLETE;
}

}  // namespace

cl_int enqueue(cl_command_queue q, cl_command_type type, cl_uint num_waits, const cl_event* waits,
               cl_event* out_event, bool blocking, std::function<cl_int()> run) {
  // Every other command (markers and barriers too: their completion tells the
  // app that the writes before them completed) copies the pending writes first.
  if (runtime().controls.deferred_writes && type != CL_COMMAND_WRITE_BUFFER)
    run = [inner = std::move(run)] {
      deferred_flush_all();
      return inner ? inner() : CL_SUCCESS;
    };
  cl_event e = new_event(q->context, q, type);
  if (out_event) {
    retain(e);
    *out_event = e;
  }
  // Fast path: an idle queue whose wait list already completed runs the
  // command in the caller's thread (no hand-off to the worker). The exec lock
  // is taken before the queue lock is released, so a command queued meanwhile
  // still runs after this one.
  {
    std::unique_lock lock(q->mutex);
    bool ready = q->in_flight == 0;
    for (cl_uint i = 0; ready && i < num_waits; ++i) ready = complete_ok(waits[i]);
    if (ready) {
      ++q->in_flight;
      std::unique_lock exec(runtime().exec_mutex);
      lock.unlock();
      set_event_status(e, CL_RUNNING);  // passes through CL_SUBMITTED (stamp, callbacks)
      cl_int status = run_command(q, e, run);
      exec.unlock();
      if (blocking) retain(e);
      finish_command(q, e, status);
      run = nullptr;  // drops retained objects (their destructor callbacks may call us)
      lock.lock();
      --q->in_flight;
      lock.unlock();
      q->idle_cv.notify_all();
      if (!blocking) return CL_SUCCESS;
      help_complete(q);
      cl_int final_status = wait_event(e);
      release(e);
      if (final_status < 0) return final_status;
      return update_app_host_memory();
    }
  }
  _cl_command_queue::Command c;
  for (cl_uint i = 0; i < num_waits; ++i) {
    retain(waits[i]);
    c.waits.push_back(waits[i]);
  }
  c.event = e;
  c.run = std::move(run);
  if (blocking) retain(e);
  {
    std::lock_guard lock(q->mutex);
    q->commands.push_back(std::move(c));
    ++q->in_flight;
  }
  q->cv.notify_one();
  if (!blocking) return CL_SUCCESS;
  cl_int status = wait_event(e);
  release(e);
  if (status < 0) return status;
  return update_app_host_memory();
}

namespace {

// What the app's driver answers when a user event's status is set a second
// time: the spec's CL_INVALID_OPERATION (PoCL), or success with nothing done
// (NVIDIA; test app errors on an H100). Asked once, of a native user event.
cl_int second_user_event_status(cl_context ctx) {
  static std::mutex mutex;
  static std::map<cl_context, cl_int> known;  // per native context
  std::lock_guard lock(mutex);
  auto [it, fresh] = known.try_emplace(ctx->real, CL_INVALID_OPERATION);
  if (!fresh || !ctx->real) return it->second;
  cl_int err = CL_SUCCESS;
  if (cl_event native = real().clCreateUserEvent(ctx->real, &err)) {
    if (real().clSetUserEventStatus(native, CL_COMPLETE) == CL_SUCCESS)
      it->second = real().clSetUserEventStatus(native, CL_COMPLETE);
    real().clReleaseEvent(native);
  }
  return it->second;
}

}  // namespace

namespace api {

cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id device,
                                      cl_command_queue_properties properties, cl_int* errcode_ret) {
  return create_queue(context, device, properties, {}, errcode_ret);
}

cl_command_queue clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                                    const cl_queue_properties* properties,
                                                    cl_int* errcode_ret) {
  cl_command_queue_properties props = 0;
  std::vector<cl_queue_properties> array;
  for (const cl_queue_properties* p = properties; p && *p; p += 2) {
    if (p[0] == CL_QUEUE_PROPERTIES) {
      props = p[1];
    } else if (p[0] != CL_QUEUE_SIZE) {
      if (errcode_ret) *errcode_ret = CL_INVALID_VALUE;
      return nullptr;
    }
    array.push_back(p[0]);
    array.push_back(p[1]);
  }
  if (!array.empty()) array.push_back(0);
  if (props & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT)) {
    if (errcode_ret) *errcode_ret = CL_INVALID_QUEUE_PROPERTIES;
    return nullptr;
  }
  return create_queue(context, device, props, std::move(array), errcode_ret);
}

cl_int clRetainCommandQueue(cl_command_queue q) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  retain(q);
  return CL_SUCCESS;
}

cl_int clReleaseCommandQueue(cl_command_queue q) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  release(q);
  return CL_SUCCESS;
}

cl_int clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param, size_t size,
                             void* value, size_t* size_ret) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  switch (param) {
    case CL_QUEUE_CONTEXT: return set_info_value(size, value, size_ret, q->context);
    case CL_QUEUE_DEVICE: return set_info_value(size, value, size_ret, q->device);
    case CL_QUEUE_REFERENCE_COUNT: return set_info_value(size, value, size_ret, ref_count(q));
    case CL_QUEUE_PROPERTIES: return set_info_value(size, value, size_ret, q->properties);
    case CL_QUEUE_PROPERTIES_ARRAY:
      return set_info(size, value, size_ret, q->properties_array.data(),
                      q->properties_array.size() * sizeof(cl_queue_properties));
    case CL_QUEUE_SIZE: return CL_INVALID_COMMAND_QUEUE;
    case CL_QUEUE_DEVICE_DEFAULT: {
      cl_command_queue none = nullptr;
      return set_info_value(size, value, size_ret, none);
    }
    default: return CL_INVALID_VALUE;
  }
}

cl_int clFlush(cl_command_queue q) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  return CL_SUCCESS;
}

cl_int clFinish(cl_command_queue q) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  // The clock is read only for LIBSPLIT_LOG=3 (apps call clFinish once per
  // iteration, often around a single short launch).
  const cl_ulong start = runtime().controls.log >= 3 ? now_ns() : 0;
  struct Report {
    cl_ulong start;
    ~Report() {
      if (start)
        log_line(3, "host time of clFinish: " + std::to_string((now_ns() - start) / 1000) + " us");
    }
  } report{start};
  {
    std::unique_lock lock(q->mutex);
    q->idle_cv.wait(lock, [&] { return q->in_flight == 0; });
  }
  help_complete(q);
  {
    std::unique_lock lock(q->mutex);
    q->idle_cv.wait(lock, [&] { return q->in_flight == 0 && !has_pending_completions(q); });
  }
  // Deferred writes count as complete once clFinish returns: the app may then
  // free or reuse their sources.
  if (runtime().controls.deferred_writes) {
    std::lock_guard exec(runtime().exec_mutex);
    deferred_flush_all();
  }
  // A command failed in the driver after its enqueue had returned
  // CL_SUCCESS (run_command): an app that only synchronises with clFinish
  // (results in its host memory, or read through another queue) must learn
  // that its results are missing.
  if (q->command_failed.load(std::memory_order_acquire)) return CL_OUT_OF_RESOURCES;
  return update_app_host_memory();
}

cl_int clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event* waits,
                                   cl_event* event) {
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  return enqueue(q, CL_COMMAND_MARKER, n, waits, event, false, nullptr);
}

cl_int clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint n, const cl_event* waits,
                                    cl_event* event) {
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  return enqueue(q, CL_COMMAND_BARRIER, n, waits, event, false, nullptr);
}

cl_int clEnqueueMarker(cl_command_queue q, cl_event* event) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (!event) return CL_INVALID_VALUE;
  return enqueue(q, CL_COMMAND_MARKER, 0, nullptr, event, false, nullptr);
}

cl_int clEnqueueBarrier(cl_command_queue q) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  return enqueue(q, CL_COMMAND_BARRIER, 0, nullptr, nullptr, false, nullptr);
}

cl_int clEnqueueWaitForEvents(cl_command_queue q, cl_uint n, const cl_event* events) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (n == 0 || !events) return CL_INVALID_VALUE;
  if (cl_int err = check_queue_and_waits(q, n, events)) return err == CL_INVALID_EVENT_WAIT_LIST ? CL_INVALID_EVENT : err;
  return enqueue(q, CL_COMMAND_BARRIER, n, events, nullptr, false, nullptr);
}

// ---- events ----

cl_int clWaitForEvents(cl_uint n, const cl_event* events) {
  if (n == 0 || !events) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; ++i) {
    if (!valid(events[i])) return CL_INVALID_EVENT;
    if (events[i]->context != events[0]->context) return CL_INVALID_CONTEXT;
  }
  cl_int result = CL_SUCCESS;
  for (cl_uint i = 0; i < n; ++i) {
    help_complete_event(events[i]);
    if (wait_event(events[i]) < 0) result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  }
  if (cl_int err = update_app_host_memory(); err && result == CL_SUCCESS) result = err;
  return result;
}

cl_int clGetEventInfo(cl_event e, cl_event_info param, size_t size, void* value, size_t* size_ret) {
  if (!valid(e)) return CL_INVALID_EVENT;
  switch (param) {
    case CL_EVENT_COMMAND_QUEUE: return set_info_value(size, value, size_ret, e->queue);
    case CL_EVENT_CONTEXT: return set_info_value(size, value, size_ret, e->context);
    case CL_EVENT_COMMAND_TYPE: return set_info_value(size, value, size_ret, e->type);
    case CL_EVENT_REFERENCE_COUNT: return set_info_value(size, value, size_ret, ref_count(e));
    case CL_EVENT_COMMAND_EXECUTION_STATUS: {
      std::lock_guard lock(e->mutex);
      return set_info_value(size, value, size_ret, e->status);
    }
    default: return CL_INVALID_VALUE;
  }
}

cl_int clGetEventProfilingInfo(cl_event e, cl_profiling_info param, size_t size, void* value,
                               size_t* size_ret) {
  if (!valid(e)) return CL_INVALID_EVENT;
  if (!e->queue || !e->profiling) return CL_PROFILING_INFO_NOT_AVAILABLE;
  std::lock_guard lock(e->mutex);
  if (param < CL_PROFILING_COMMAND_QUEUED || param > CL_PROFILING_COMMAND_COMPLETE)
    return CL_INVALID_VALUE;
  if (e->status != CL_COMPLETE) return CL_PROFILING_INFO_NOT_AVAILABLE;
  return set_info_value(size, value, size_ret, e->times[param - CL_PROFILING_COMMAND_QUEUED]);
}

cl_event clCreateUserEvent(cl_context ctx, cl_int* errcode_ret) {
  if (!valid(ctx)) {
    if (errcode_ret) *errcode_ret = CL_INVALID_CONTEXT;
    return nullptr;
  }
  cl_event e = new_event(ctx, nullptr, CL_COMMAND_USER);
  e->status = CL_SUBMITTED;
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return e;
}

cl_int clSetUserEventStatus(cl_event e, cl_int status) {
  if (!valid(e) || e->queue || e->type != CL_COMMAND_USER) return CL_INVALID_EVENT;
  if (status != CL_COMPLETE && status >= 0) return CL_INVALID_VALUE;
  {
    std::lock_guard lock(e->mutex);
    if (e->status <= CL_COMPLETE) return second_user_event_status(e->context);
  }
  set_event_status(e, status);
  return CL_SUCCESS;
}

cl_int clSetEventCallback(cl_event e, cl_int type, void(CL_CALLBACK* fn)(cl_event, cl_int, void*),
                          void* user) {
  if (!valid(e)) return CL_INVALID_EVENT;
  if (!fn || (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE))
    return CL_INVALID_VALUE;
  cl_int now;
  {
    std::lock_guard lock(e->mutex);
    now = e->status;
    if (now > type) {
      e->callbacks.push_back({type, fn, user});
      return CL_SUCCESS;
    }
  }
  fn(e, now < 0 ? now : type, user);
  return CL_SUCCESS;
}

cl_int clRetainEvent(cl_event e) {
  if (!valid(e)) return CL_INVALID_EVENT;
  retain(e);
  return CL_SUCCESS;
}

cl_int clReleaseEvent(cl_event e) {
  if (!valid(e)) return CL_INVALID_EVENT;
  release(e);
  return CL_SUCCESS;
}

}  // namespace api
}  // namespace libsplit
