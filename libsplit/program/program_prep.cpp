// The per-program state machine of preparation (program_prep.h): the
// background job, its deferral, and the adoption of its answer.
#include "program_prep.h"

#include "background_jobs.h"
#include "lazy_slots.h"
#include "prepared_program.h"
#include "real_api.h"
#include "runtime.h"
#include "slot_builds.h"

#include <memory>

namespace libsplit {

using Mode = _cl_program::Mode;

namespace {

std::string ms_since(cl_ulong t0) { return std::to_string((now_ns() - t0) / 1000000) + " ms"; }

// Makes `r` the program's execution side (under the exec lock): Adopted.
void adopt(cl_program p, PreparedProgram&& r) {
  release_all(p->per_platform);
  p->per_platform = std::move(r.per_platform);
  p->summary = std::move(r.summary);
  p->mode = r.mode;
  p->mode_reason = r.reason;
  p->lazy_source = std::move(r.lazy_source);
  p->lazy_options = std::move(r.lazy_options);
  p->lazy_failed = false;
  set_lazy_slots(p, std::move(r.lazy_cached));
  if (r.mode == Mode::Failed) {
    log_line(1, "cannot build the program on libsplit's devices: " + r.reason);
  }
}

// The job's first step: the original source on the slots of the app's
// context, `ready` ones (one reference each, released here) taken as built.
// Each slot's original is published as soon as it is built: the first
// launches need only the app's device's. Other platforms get none: their
// devices run the partition-ready program, whole launches included (a
// kernel's whole range is the same work either way), and on a GPU node
// the CPU's compile of the original cost 1.3 s of a fresh machine's first
// run, waited for at exit.
Built build_originals(cl_program p, unsigned generation, const std::string& source,
                      const std::string& options, std::vector<cl_program>& ready, cl_ulong t0) {
  Built originals = build_per_slot(p, &source, options, nullptr, [&](unsigned slot, cl_program prog) {
    bool taken = false;
    {
      std::lock_guard lock(p->prep_mutex);
      if (generation != p->prep_generation || p->originals[slot]) return false;
      // The first launches wait for this original: where the driver refuses
      // a second reference, the build's own one passes to them (the rest of
      // the preparation builds that slot again).
      taken = real().clRetainProgram(prog) != CL_SUCCESS;
      p->originals[slot] = prog;
    }
    p->prep_cv.notify_all();
    return taken;
  }, &ready, /*app_slots_only=*/true, /*app_source=*/true);
  release_all(ready);
  log_line(2, "preparation: original source built in " + ms_since(t0));
  return originals;
}

// Whether the job is still the program's current one (a rebuild makes it
// stale). When it is and `defer`, the originals serve the first launches and
// become the deferred job's `ready` (Deferred): the rest waits until the
// program's launches prove long enough to be worth it.
bool keep_originals(cl_program p, unsigned generation, bool defer, std::vector<cl_program>& originals) {
  std::lock_guard lock(p->prep_mutex);
  const bool current = generation == p->prep_generation;
  if (current && defer) {
    release_all(p->deferred_ready);
    p->deferred_ready.swap(originals);
    p->first_launch_ns = 0;
    p->prep_deferred = true;
  }
  return current;
}

// The job's second step: the full preparation (prepared_program.h), left
// for the next launch to adopt (Prepared).
void prepare_rest(cl_program p, unsigned generation, bool current, const std::string& source,
                  const std::string& options, Built& originals, cl_ulong t0) {
  auto prepared = std::make_shared<PreparedProgram>();
  // The originals above stay in the app's process (its first launches wait
  // for them: a helper's start would delay them); the rest goes to helpers.
  become_background_build();
  if (current && !app_exiting()) {
    *prepared = prepare(p, source, options, originals.all ? &originals.programs : nullptr);
    for (cl_program prog : prepared->per_platform)
      if (prog && !app_exiting()) load_kernels(prog);
    log_line(1, std::string("preparation: ") +
                    (prepared->mode == Mode::Compiled ? "partition-ready program" : "program") +
                    " ready after " + ms_since(t0) + " in the background");
  }
  release_all(originals.programs);
  {
    // A job cut short by the app's end publishes nothing: launches still
    // racing with exit() keep running on the originals.
    std::lock_guard lock(p->prep_mutex);
    if (generation == p->prep_generation && !app_exiting()) p->prepared = std::move(prepared);
    else release_all(prepared->per_platform);
  }
  p->prep_cv.notify_all();
}

// The background job (Preparing): builds the originals still missing, then
// the partition-ready program; `ready` slots (one reference each, released
// here) are built already. With `originals_only` it stops after the
// originals and leaves the rest deferred (maybe_start_deferred).
void start_job(cl_program p, unsigned generation, std::vector<cl_program> ready,
               bool originals_only = false) {
  run_background_job(p, [p, generation, originals_only, source = p->source, options = p->options,
                         ready = std::move(ready)]() mutable {
    const cl_ulong t0 = now_ns();
    Built originals = build_originals(p, generation, source, options, ready, t0);
    // A failed original goes on to the full preparation, whose answer the
    // waiting launches need.
    const bool defer = originals_only && originals.all && !app_exiting();
    const bool current = keep_originals(p, generation, defer, originals.programs);
    if (defer) {
      release_all(originals.programs);
      p->prep_cv.notify_all();
      return;
    }
    prepare_rest(p, generation, current, source, options, originals, t0);
  });
}

// Deferred -> Preparing once the program's launches have gone on for
// LIBSPLIT_PREPARE_AFTER_MS.
void maybe_start_deferred(cl_program p) {
  std::vector<cl_program> ready;
  unsigned generation;
  if (!p->prep_deferred.load(std::memory_order_relaxed)) return;
  {
    std::lock_guard lock(p->prep_mutex);
    if (!p->prep_deferred) return;
    // A coarse clock (ms steps, a fraction of a fine read's cost): this runs
    // at every launch and compares with a threshold of LIBSPLIT_PREPARE_AFTER_MS.
    const cl_ulong now = now_coarse_ns();
    if (p->first_launch_ns == 0) p->first_launch_ns = now;
    if (now - p->first_launch_ns < cl_ulong(runtime().controls.prepare_after_ms) * 1000000) return;
    p->prep_deferred = false;
    ready = std::move(p->deferred_ready);
    p->deferred_ready.clear();
    generation = p->prep_generation;
  }
  log_line(2, "preparation: starts, the launches went on for " +
                  std::to_string(runtime().controls.prepare_after_ms) + " ms");
  start_job(p, generation, std::move(ready));
}

// Source known again (a build of the app): whatever an earlier preparation
// built or left for later is dropped; its job's answer will be stale.
unsigned restart_preparation(cl_program p) {
  release_all(p->per_platform);
  p->summary.reset();
  std::lock_guard lock(p->prep_mutex);
  const unsigned generation = ++p->prep_generation;
  p->prepared.reset();
  release_all(p->originals);
  p->originals.assign(runtime().platforms.size(), nullptr);
  release_all(p->deferred_ready);
  p->prep_deferred = false;
  release_all(p->lazy_built);
  p->lazy_state.clear();
  return generation;
}

// Where libsplit shares the app's context (runtime.h), the app's own build
// is that slot's original: the first launches need nothing more. By slot,
// one reference each for the job; p->originals holds one more.
std::vector<cl_program> app_builds_as_originals(cl_program p) {
  Runtime& rt = runtime();
  std::vector<cl_program> ready(rt.platforms.size(), nullptr);
  for (unsigned s = 0; s < rt.platforms.size(); ++s)
    if (rt.device_slot_open(s) && rt.contexts[s] == p->context->real && built_for(p, slot_devices(s))) {
      if (real().clRetainProgram(p->native) != CL_SUCCESS) continue;  // not shared: built apart
      ready[s] = p->native;
      log_line(2, "preparation: the app's build is the original of platform slot " + std::to_string(s));
    }
  std::lock_guard lock(p->prep_mutex);
  for (unsigned s = 0; s < ready.size(); ++s)
    if (ready[s]) {
      p->originals[s] = ready[s];
      // Refused: the job's reference passes to the first launches, and the
      // job builds that slot's original itself.
      if (real().clRetainProgram(ready[s]) != CL_SUCCESS) ready[s] = nullptr;
    }
  return ready;
}

// Whether the job may wait for LIBSPLIT_PREPARE_AFTER_MS of launches: not
// where the app's device has a twin: an even split with it is the first
// plan, and on 2 H200 deferring kept matmul whole for 15 of its 30 launches
// (0.96 x one GPU instead of ~0.6).
bool job_may_wait(cl_program p) {
  const Runtime& rt = runtime();
  bool defer = rt.controls.prepare_after_ms > 0;
  for (cl_device_id id : p->context->devices)
    if (int d = rt.device_index(id); d >= 0 && rt.devices[d].has_twin) defer = false;
  return defer;
}

}  // namespace

void start_preparation(cl_program p) {
  Runtime& rt = runtime();
  const unsigned generation = restart_preparation(p);
  if (!p->from_source || rt.controls.sync_prepare) {
    p->mode = Mode::Unprepared;
    advance_preparation(p, 0);
    return;
  }
  p->mode = Mode::Preparing;
  std::vector<cl_program> ready = app_builds_as_originals(p);
  // Every device of the app's context has its original already: nothing
  // waits for the job, which can wait until the program proves long enough.
  const bool defer = job_may_wait(p);
  bool all_ready = defer;
  for (cl_device_id id : p->context->devices)
    if (int d = rt.device_index(id); d >= 0 && !ready[rt.devices[d].slot]) all_ready = false;
  if (all_ready) {
    std::lock_guard lock(p->prep_mutex);
    release_all(p->deferred_ready);
    p->deferred_ready = std::move(ready);
    p->prep_deferred = true;
    p->first_launch_ns = 0;
    return;
  }
  // Otherwise (libsplit's context of the app's platform holds more devices
  // than the app's, e.g. a second PoCL device) the originals are built at
  // once, and the rest is deferred the same way (on 2 H200, before the twin
  // rule, a run of 100 ms of launches waited 91 ms at exit for a preparation
  // it never used).
  start_job(p, generation, std::move(ready), /*originals_only=*/defer);
}

void advance_preparation(cl_program p, unsigned home) {
  if (!p->first_use_ns) p->first_use_ns = now_coarse_ns();
  if (p->mode == Mode::Preparing) {
    maybe_start_deferred(p);
    const unsigned slot = runtime().devices[home].slot;
    std::unique_lock lock(p->prep_mutex);
    // Run on the original source as soon as it is built for the home
    // device's platform; otherwise wait for the job's final answer.
    p->prep_cv.wait(lock, [&] {
      return p->prepared || (slot < p->originals.size() && p->originals[slot]);
    });
    if (!p->prepared) return;
    std::shared_ptr<PreparedProgram> r = std::move(p->prepared);
    lock.unlock();
    adopt(p, std::move(*r));
    return;
  }
  if (p->mode != Mode::Unprepared) return;
  adopt(p, prepare(p, p->source, p->options, nullptr));
}

}  // namespace libsplit
