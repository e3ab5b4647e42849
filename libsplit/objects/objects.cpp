#include "objects.h"

#include "completion.h"
#include "device_kernel_args.h"
#include "device_wait.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <unordered_set>

namespace libsplit {

namespace {

bool completed(cl_event e) { return native_status(e) <= CL_COMPLETE; }

}  // namespace

// The list is pruned of completed writes as it grows (a store staged piece
// by piece).
void note_shadow_reader(BufferStore& s, Range r, cl_event e) {
  if (!e) return;
  if (s.shadow_readers.size() >= 8)
    std::erase_if(s.shadow_readers, [](const auto& w) {
      if (!completed(w.second)) return false;
      real().clReleaseEvent(w.second);
      return true;
    });
  s.shadow_readers.emplace_back(r, e);
}

void before_shadow_change(BufferStore& s, Range r) {
  if (s.shadow_readers.empty()) return;
  std::vector<cl_event> wait;
  std::erase_if(s.shadow_readers, [&](const auto& w) {
    if (w.first.end <= r.begin || r.end <= w.first.begin) return false;
    wait.push_back(w.second);
    return true;
  });
  if (wait.empty()) return;
  check_may_wait("a wait for device writes reading the host copy");
  // One at a time: the writes may go to devices of different contexts.
  for (cl_event e : wait) {
    wait_device_event(e);
    real().clReleaseEvent(e);
  }
}

cl_int set_info(size_t size, void* value, size_t* size_ret, const void* data, size_t n) {
  if (value) {
    if (size < n) return CL_INVALID_VALUE;
    if (n) std::memcpy(value, data, n);
  }
  if (size_ret) *size_ret = n;
  return CL_SUCCESS;
}

namespace {
std::mutex g_mems_mutex;
std::unordered_set<const void*>& live_mems() {
  static auto* set = new std::unordered_set<const void*>;
  return *set;
}
}  // namespace

void register_mem(cl_mem m) {
  std::lock_guard lock(g_mems_mutex);
  live_mems().insert(m);
}

bool is_live_mem(const void* p) {
  std::lock_guard lock(g_mems_mutex);
  return live_mems().count(p) != 0;
}

namespace {
std::unordered_set<const void*>& live_samplers() {
  static auto* set = new std::unordered_set<const void*>;
  return *set;
}
}  // namespace

void register_sampler(cl_sampler s) {
  std::lock_guard lock(g_mems_mutex);
  live_samplers().insert(s);
}

bool is_live_sampler(const void* p) {
  std::lock_guard lock(g_mems_mutex);
  return live_samplers().count(p) != 0;
}

namespace {
bool drop(ObjHeader* h) { return h->refs.fetch_sub(1) == 1; }

// Runs the context's destructor callbacks once the app sees no reference
// left (`refs`: the count after the change that may have ended it).
void end_app_view(cl_context c, int refs) {
  if (refs - c->hidden_refs.load() > 0 || c->destructors_ran.exchange(true)) return;
  // Destructor callbacks run in reverse order of registration.
  for (auto it = c->destructor_callbacks.rbegin(); it != c->destructor_callbacks.rend(); ++it)
    it->first(c, it->second);
}

}  // namespace

template <>
cl_uint ref_count(cl_context c) {
  return static_cast<cl_uint>(std::max(0, c->hdr.refs.load() - c->hidden_refs.load()));
}

template <>
cl_uint ref_count(cl_program p) {
  std::lock_guard lock(p->holds_mutex);
  return static_cast<cl_uint>(std::max(0, p->hdr.refs.load() - p->job_holds));
}

void hold_for_job(cl_program p) {
  std::lock_guard lock(p->holds_mutex);
  ++p->job_holds;
  retain(p);
}

void release_for_job(cl_program p) {
  {
    std::lock_guard lock(p->holds_mutex);
    --p->job_holds;
  }
  release(p);
}

void release(cl_context c) {
  const int refs = c->hdr.refs.fetch_sub(1) - 1;
  end_app_view(c, refs);
  if (refs != 0) return;
  if (c->real) real().clReleaseContext(c->real);
  c->hdr.magic = 0;
  delete c;
}

void release(cl_command_queue q) {
  if (q->hdr.refs.load() == 1) stop_queue(q);  // implicit flush; wait for the worker
  if (!drop(&q->hdr)) return;
  cl_context ctx = q->context;
  q->hdr.magic = 0;
  delete q;
  release(ctx);
}

void release(cl_mem m) {
  if (!drop(&m->hdr)) return;
  for (auto it = m->destructor_callbacks.rbegin(); it != m->destructor_callbacks.rend(); ++it)
    it->first(m, it->second);
  cl_mem parent = m->parent;
  cl_context ctx = m->context;
  {
    std::lock_guard lock(g_mems_mutex);
    live_mems().erase(m);
  }
  release_device_mem(m->pipe);
  for (cl_mem sub : m->device_subs) release_device_mem(sub);
  m->hdr.magic = 0;
  delete m;
  if (parent) release(parent);
  release(ctx);
}

void release(cl_program p) {
  {
    // The app's last reference going while background jobs hold it: the
    // program's hold on its context becomes hidden (taken while this caller's
    // reference keeps p alive).
    std::unique_lock lock(p->holds_mutex);
    if (p->job_holds > 0 && !p->context_hold_hidden && p->hdr.refs.load() == p->job_holds + 1) {
      p->context_hold_hidden = true;
      p->context->hidden_refs.fetch_add(1);
      lock.unlock();  // the app's callbacks may call back in
      end_app_view(p->context, p->context->hdr.refs.load());
    }
  }
  if (!drop(&p->hdr)) return;
  for (auto it = p->release_callbacks.rbegin(); it != p->release_callbacks.rend(); ++it)
    it->first(p, it->second);
  for (cl_program pp : p->per_platform)
    if (pp) real().clReleaseProgram(pp);
  for (cl_program pp : p->deferred_ready)
    if (pp) real().clReleaseProgram(pp);
  for (cl_program pp : p->originals)
    if (pp) real().clReleaseProgram(pp);
  for (cl_program pp : p->lazy_built)
    if (pp) real().clReleaseProgram(pp);
  if (p->native) real().clReleaseProgram(p->native);
  cl_context ctx = p->context;
  if (p->context_hold_hidden) ctx->hidden_refs.fetch_sub(1);
  p->hdr.magic = 0;
  delete p;
  release(ctx);
}

void release(cl_kernel k) {
  if (!drop(&k->hdr)) return;
  for (const auto* kernels : {&k->per_device, &k->per_device_original})
    for (cl_kernel dk : *kernels)
      if (dk) {
        forget_kernel_args(dk);
        real().clReleaseKernel(dk);
      }
  if (k->native) real().clReleaseKernel(k->native);
  cl_program p = k->program;
  k->hdr.magic = 0;
  delete k;
  release(p);
}

void release(cl_event e) {
  if (!drop(&e->hdr)) return;
  cl_context ctx = e->context;
  e->hdr.magic = 0;
  delete e;
  if (ctx) release(ctx);
}

void release(cl_sampler s) {
  if (!drop(&s->hdr)) return;
  {
    std::lock_guard lock(g_mems_mutex);
    live_samplers().erase(s);
  }
  for (cl_sampler r : s->per_slot)
    if (r) {
      forget_kernel_arg_object(r);
      real().clReleaseSampler(r);
    }
  if (s->native) real().clReleaseSampler(s->native);
  cl_context ctx = s->context;
  s->hdr.magic = 0;
  delete s;
  release(ctx);
}

cl_event new_event(cl_context ctx, cl_command_queue q, cl_command_type type) {
  auto* e = new _cl_event;
  e->context = ctx;
  retain(ctx);
  e->queue = q;
  e->type = type;
  e->profiling = q && (q->properties & CL_QUEUE_PROFILING_ENABLE);
  // Host clock reads cost ~50 ns each on the machines measured: taken
  // only where the app can see them.
  if (e->profiling) e->times[0] = now_ns();
  return e;
}

void set_event_status(cl_event e, cl_int status) {
  std::vector<_cl_event::Callback> due;
  {
    std::lock_guard lock(e->mutex);
    if (e->status <= CL_COMPLETE) return;  // already final
    const cl_ulong t = e->profiling ? now_ns() : 0;
    if (status <= CL_SUBMITTED && !e->times[1]) e->times[1] = t;
    if (status <= CL_RUNNING && !e->times[2]) e->times[2] = t;
    if (status <= CL_COMPLETE) {
      e->times[3] = e->times[4] = t;
      if (e->device_end) {
        // Device work seen on the host clock, kept inside [submit, complete].
        e->times[2] = std::clamp(e->device_start, e->times[1], t);
        e->times[3] = std::clamp(e->device_end, e->times[2], t);
      }
    }
    e->status = status;
    auto& cbs = e->callbacks;
    for (auto it = cbs.begin(); it != cbs.end();) {
      if (status <= it->on) {
        due.push_back(*it);
        it = cbs.erase(it);
      } else {
        ++it;
      }
    }
  }
  e->cv.notify_all();
  for (auto& cb : due) cb.fn(e, status < 0 ? status : cb.on, cb.user);
}

cl_int wait_event(cl_event e) {
  std::unique_lock lock(e->mutex);
  e->cv.wait(lock, [&] { return e->status <= CL_COMPLETE; });
  return e->status;
}

void stop_queue(cl_command_queue q) {
  {
    std::lock_guard lock(q->mutex);
    if (q->stopping) return;
    q->stopping = true;
  }
  q->cv.notify_all();
  if (q->worker.joinable()) q->worker.join();
  std::unique_lock lock(q->mutex);
  q->idle_cv.wait(lock, [&] { return q->pending.empty(); });
}

}  // namespace libsplit
