#include "completion.h"

#include "real_api.h"

#include <atomic>
#include <memory>
#include <vector>

namespace libsplit {

struct PendingCompletion {
  cl_command_queue queue = nullptr;
  cl_event event = nullptr;  // the app's, one reference owned
  cl_int status = CL_SUCCESS;
  std::atomic<int> remaining{0};    // native events not yet complete
  std::atomic<cl_int> failure{CL_SUCCESS};
};

namespace {

struct NativeWait {
  cl_event native;
  std::function<void(cl_event)> on_complete;
};

// The native events handed over by the run() executing on this thread.
thread_local std::vector<NativeWait> t_waits;

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
    set_event_status(p->event, final_status(status));
    release(p->event);
  }
  if (!done.empty()) q->idle_cv.notify_all();
}

struct CallbackData {
  std::shared_ptr<PendingCompletion> entry;
  std::function<void(cl_event)> on_complete;
};

void CL_CALLBACK native_done(cl_event native, cl_int status, void* user) {
  std::unique_ptr<CallbackData> data(static_cast<CallbackData*>(user));
  if (status < 0) data->entry->failure.store(status);
  if (data->on_complete) data->on_complete(native);
  real().clReleaseEvent(native);
  cl_command_queue q = data->entry->queue;
  if (data->entry->remaining.fetch_sub(1) == 1) drain(q);
}

}  // namespace

void complete_after(cl_event native, std::function<void(cl_event)> on_complete) {
  t_waits.push_back({native, std::move(on_complete)});
}

bool has_pending_completions(cl_command_queue q) { return !q->pending.empty(); }

void finish_command(cl_command_queue q, cl_event e, cl_int status) {
  std::vector<NativeWait> waits = std::move(t_waits);
  t_waits.clear();
  auto entry = std::make_shared<PendingCompletion>();
  entry->queue = q;
  entry->event = e;
  entry->status = status;
  entry->remaining.store(static_cast<int>(waits.size()));
  {
    std::lock_guard lock(q->mutex);
    if (waits.empty() && q->pending.empty()) {
      entry.reset();
    } else {
      q->pending.push_back(entry);
    }
  }
  if (!entry) {
    set_event_status(e, final_status(status));
    release(e);
    return;
  }
  for (NativeWait& w : waits) {
    auto* data = new CallbackData{entry, std::move(w.on_complete)};
    if (real().clSetEventCallback(w.native, CL_COMPLETE, native_done, data) != CL_SUCCESS) {
      // No callback: wait here (correct, only slower).
      real().clWaitForEvents(1, &w.native);
      cl_int st = CL_COMPLETE;
      real().clGetEventInfo(w.native, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
      native_done(w.native, st, data);
    }
  }
  // A command with no device work of its own completes behind the earlier ones.
  if (waits.empty()) drain(q);
}

}  // namespace libsplit
