#include "completion.h"

#include "device_wait.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace libsplit {

// One native event a command waits for. Whoever sees it complete first (the
// driver's callback, or a thread waiting in clFinish / a blocking call)
// handles it: runs on_complete and counts it down; the other does nothing.
// Its reference to the native event lives as long as the wait, i.e. as long
// as anyone holds the command's PendingCompletion: a thread that found the
// wait unhandled may still use the event after a driver thread handled it.
// (A reference released by the handler instead let a clFinish retain an
// event that the callback had just freed: PoCL-Remote aborted in
// POclRetainEvent, remote_apps.)
struct NativeWait {
  cl_event native = nullptr;  // one reference owned
  cl_command_queue device_queue = nullptr;  // where it runs (in order)
  std::function<void(cl_event, cl_event)> on_complete;
  std::atomic<bool> handled{false};
  NativeWait() = default;
  NativeWait(const NativeWait&) = delete;
  NativeWait& operator=(const NativeWait&) = delete;
  ~NativeWait() {
    if (native) real().clReleaseEvent(native);
  }
};

struct PendingCompletion {
  cl_command_queue queue = nullptr;
  cl_event event = nullptr;  // the app's, one reference owned
  cl_int status = CL_SUCCESS;
  std::vector<std::unique_ptr<NativeWait>> waits;
  std::atomic<int> remaining{0};  // waits not yet handled
  std::atomic<cl_int> failure{CL_SUCCESS};
};

namespace {

thread_local int t_driver_callbacks = 0;

}  // namespace

DriverCallbackScope::DriverCallbackScope() { ++t_driver_callbacks; }
DriverCallbackScope::~DriverCallbackScope() { --t_driver_callbacks; }
bool in_driver_callback() { return t_driver_callbacks > 0; }

void check_may_wait(const char* what) {
  if (in_driver_callback() && fault_injected("check_callbacks")) {
    fprintf(stderr, "libsplit: %s inside a driver callback (it may wait for the callback's own thread)\n", what);
    abort();
  }
}

namespace {

// The native events handed over by the run() executing on this thread.
thread_local std::vector<std::unique_ptr<NativeWait>> t_waits;
// Device queues given unobserved work by that run().
thread_local std::vector<cl_command_queue> t_untracked;

void add_unique(std::vector<cl_command_queue>& v, cl_command_queue dq) {
  if (std::find(v.begin(), v.end(), dq) == v.end()) v.push_back(dq);
}

cl_int final_status(cl_int status) {
  return status == CL_SUCCESS ? CL_COMPLETE : (status < 0 ? status : -status);
}

// Completes, in order, the queue's head entries whose native work is done.
void drain(cl_command_queue q) {
  std::vector<std::shared_ptr<PendingCompletion>> done;
  {
    std::lock_guard lock(q->mutex);
    while (!q->pending.empty() && q->pending.front()->remaining.load() == 0) {
      done.push_back(std::move(q->pending.front()));
      q->pending.pop_front();
    }
  }
  for (auto& p : done) {
    cl_int status = p->status != CL_SUCCESS ? p->status : p->failure.load();
    // Device work that failed after its command returned (a lost remote
    // device): as for a failed run, the commands after it and clFinish fail.
    if (status < 0) q->command_failed.store(true, std::memory_order_release);
    set_event_status(p->event, final_status(status));
    release(p->event);
  }
  if (!done.empty()) q->idle_cv.notify_all();
}

void handle(const std::shared_ptr<PendingCompletion>& entry, NativeWait& w, cl_int status) {
  if (w.handled.exchange(true)) return;
  if (status < 0) entry->failure.store(status);
  if (w.on_complete) w.on_complete(w.native, entry->event);
  if (entry->remaining.fetch_sub(1) == 1) drain(entry->queue);
}

// The callback's hold on the command, hence on the wait's event.
struct CallbackData {
  std::shared_ptr<PendingCompletion> entry;
  NativeWait* wait;
};

void CL_CALLBACK native_done(cl_event, cl_int status, void* user) {
  DriverCallbackScope scope;
  std::unique_ptr<CallbackData> data(static_cast<CallbackData*>(user));
  handle(data->entry, *data->wait, status);
}

}  // namespace

void complete_after(cl_command_queue device_queue, cl_event native,
                    std::function<void(cl_event, cl_event)> on_complete) {
  auto w = std::make_unique<NativeWait>();
  w->native = native;
  w->device_queue = device_queue;
  w->on_complete = std::move(on_complete);
  t_waits.push_back(std::move(w));
}

void note_device_work(cl_command_queue device_queue) { add_unique(t_untracked, device_queue); }

bool has_pending_completions(cl_command_queue q) { return !q->pending.empty(); }

void finish_command(cl_command_queue q, cl_event e, cl_int status) {
  // Only we hold an event nobody kept: its command cannot be observed.
  const bool observed = ref_count(e) > 1;
  std::vector<cl_command_queue> untracked;
  {
    std::lock_guard lock(q->mutex);
    for (cl_command_queue dq : t_untracked) add_unique(q->untracked, dq);
    if (observed) untracked.swap(q->untracked);
  }
  t_untracked.clear();
  // An observed command completes after all earlier device work of its queue.
  for (cl_command_queue dq : untracked) {
    auto w = std::make_unique<NativeWait>();
    w->device_queue = dq;
    if (real().clEnqueueMarkerWithWaitList(dq, 0, nullptr, &w->native) == CL_SUCCESS && w->native) {
      real().clFlush(dq);
      t_waits.push_back(std::move(w));
    } else {
      finish_device_queue(dq);
    }
  }
  const size_t n = t_waits.size();
  std::shared_ptr<PendingCompletion> entry;
  {
    std::lock_guard lock(q->mutex);
    // Nothing to wait for and nothing ahead: complete now, with no entry.
    if (n > 0 || !q->pending.empty()) {
      entry = std::make_shared<PendingCompletion>();
      entry->queue = q;
      entry->event = e;
      entry->status = status;
      entry->waits = std::move(t_waits);
      entry->remaining.store(static_cast<int>(n));
      q->pending.push_back(entry);
    }
  }
  t_waits.clear();
  if (!entry) {
    set_event_status(e, final_status(status));
    release(e);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    NativeWait& w = *entry->waits[i];
    auto* data = new CallbackData{entry, &w};
    if (real().clSetEventCallback(w.native, CL_COMPLETE, native_done, data) != CL_SUCCESS) {
      delete data;  // no callback (the driver refused it): wait here
      handle(entry, w, wait_device_event(w.native));
    }
  }
  // A command with no device work of its own completes behind the earlier ones.
  if (n == 0) drain(q);
}

namespace {

// Finishes (natively) the device queues of q's pending commands up to and
// including the one of app event `until` (all of them when null), then
// completes those commands in order.
void help_complete_up_to(cl_command_queue q, cl_event until) {
  // Snapshot the pending native waits (their commands held: a callback may
  // handle them meanwhile), finish their device queues (as fast as the app's own
  // clFinish; some drivers' event waits and callbacks come in coarse steps:
  // NVIDIA's callback for a 0.1 ms kernel arrived 4-20 ms late), handle them
  // in order.
  std::vector<std::pair<std::shared_ptr<PendingCompletion>, NativeWait*>> todo;
  std::vector<cl_command_queue> queues;
  {
    std::lock_guard lock(q->mutex);
    if (!until) queues.swap(q->untracked);
    bool found = !until;
    for (auto& entry : q->pending)
      found = found || entry->event == until;
    if (!found) return;  // not run yet, or already complete
    for (auto& entry : q->pending) {
      for (auto& w : entry->waits)
        if (!w->handled.load()) {
          todo.emplace_back(entry, w.get());
          add_unique(queues, w->device_queue);
        }
      if (entry->event == until) break;
    }
  }
  // A queue that cannot finish (its device was lost) fails its commands:
  // their callbacks never come, and the app's clFinish must return.
  std::vector<std::pair<cl_command_queue, cl_int>> failed;
  const std::vector<cl_int> finished = finish_device_queues(queues);
  for (size_t i = 0; i < queues.size(); ++i)
    if (queues[i] && finished[i] != CL_SUCCESS) failed.emplace_back(queues[i], finished[i]);
  for (auto& [entry, w] : todo) {
    cl_event native = w->native;
    auto f = std::find_if(failed.begin(), failed.end(), [&](auto& p) { return p.first == w->device_queue; });
    const cl_int status = f != failed.end() ? f->second
                          : !w->device_queue ? wait_device_event(native)
                                             : native_status(native);
    handle(entry, *w, status);
  }
}

}  // namespace

void help_complete(cl_command_queue q) { help_complete_up_to(q, nullptr); }

void help_complete_event(cl_event e) {
  if (e->queue) help_complete_up_to(e->queue, e);
}

}  // namespace libsplit
