#include "lazy_slots.h"

#include "background_jobs.h"
#include "real_api.h"
#include "runtime.h"
#include "slot_builds.h"

namespace libsplit {

using LazySlot = _cl_program::LazySlot;

namespace {

// What a platform's first build of a program is taken to cost: PoCL's build
// of a partition-ready program took 0.76-1.2 s on the GPU node, waited for at
// exit when the app ended meanwhile (a driver torn down under a build
// crashes). Paid from the exploration budget: with the default 2 % the other
// platform is first explored after 50 s of the program's launches, at once
// when its binaries are cached.
constexpr double kOtherPlatformBuildSeconds = 1.0;

// Publishes a lazy slot's build (under prep_mutex): kept for the next launch
// to take, or dropped when the program was rebuilt meanwhile.
void publish_lazy(cl_program p, unsigned slot, unsigned generation, cl_program prog, const std::string& why) {
  if (generation != p->prep_generation || slot >= p->lazy_state.size()) {
    if (prog) real().clReleaseProgram(prog);
    return;
  }
  if (!prog) {
    log_line(1, "program not built for platform slot " + std::to_string(slot) +
                    (why.empty() ? std::string() : ": " + why) + "; its launches run whole");
    p->lazy_state[slot] = LazySlot::Failed;
    p->lazy_failed = true;
    return;
  }
  p->lazy_built[slot] = prog;
  p->lazy_state[slot] = LazySlot::Built;
}

// Builds a lazy slot in the background (lock: prep_mutex, state Pending or
// Deferred). `once_open`: the slot's context is being opened; the build waits
// for it, and where it does not open (or the app ends first) the slot goes
// back to the state it had, for a later launch to ask.
void start_lazy_build(cl_program p, unsigned slot, std::unique_lock<std::mutex>& lock, bool once_open = false) {
  const LazySlot was = p->lazy_state[slot];
  p->lazy_state[slot] = LazySlot::Building;
  log_line(2, "preparation: platform slot " + std::to_string(slot) +
                  (once_open ? " is opening, built once open" : " is wanted, built in the background"));
  run_background_job(p, [p, slot, was, once_open, generation = p->prep_generation, source = p->lazy_source,
                         options = p->lazy_options] {
    become_background_build();
    const bool open = !once_open || runtime().wait_slot_open(slot, app_exiting);
    std::string why = "the app ended";
    cl_program prog = open && !app_exiting() ? build_slot(p, slot, &source, options, nullptr, &why) : nullptr;
    {
      std::lock_guard lock(p->prep_mutex);
      if (once_open && !prog && (!open || app_exiting())) {
        if (generation == p->prep_generation && slot < p->lazy_state.size()) p->lazy_state[slot] = was;
      } else {
        publish_lazy(p, slot, generation, prog, why);
      }
    }
    p->prep_cv.notify_all();
  });
  (void)lock;
}

}  // namespace

void build_once_open(cl_program p, unsigned slot) {
  std::unique_lock lock(p->prep_mutex);
  if (slot >= p->lazy_state.size() || app_exiting()) return;
  if (p->lazy_state[slot] == LazySlot::Pending || p->lazy_state[slot] == LazySlot::Deferred)
    start_lazy_build(p, slot, lock, /*once_open=*/true);
}

void set_lazy_slots(cl_program p, std::vector<bool> cached) {
  std::lock_guard lock(p->prep_mutex);
  release_all(p->lazy_built);
  p->lazy_built.assign(p->per_platform.size(), nullptr);
  p->lazy_state.assign(p->per_platform.size(), LazySlot::None);
  p->lazy_cached = std::move(cached);
  p->lazy_cached.resize(p->per_platform.size(), false);
  if (!p->lazy_source.empty())
    for (size_t s = 0; s < p->per_platform.size(); ++s)
      if (!p->per_platform[s])
        p->lazy_state[s] = p->lazy_cached[s] ? LazySlot::Pending : LazySlot::Deferred;
}

cl_program take_lazy_slot(cl_program p, unsigned slot, bool wait, bool wanted) {
  std::unique_lock lock(p->prep_mutex);
  if (slot >= p->lazy_state.size()) return nullptr;
  if (p->lazy_state[slot] == LazySlot::Deferred) {
    const Runtime& rt = runtime();
    const double ran = (now_coarse_ns() - p->first_use_ns) * 1e-9;
    if (wait || wanted || (rt.explore_budget > 0 && ran * rt.explore_budget >= kOtherPlatformBuildSeconds))
      p->lazy_state[slot] = LazySlot::Pending;
    else
      return nullptr;
  }
  if (p->lazy_state[slot] == LazySlot::Pending) {
    if (!wait) {
      if (!app_exiting()) start_lazy_build(p, slot, lock);
      return nullptr;
    }
    // A split wants the device now (its data is being staged for it).
    p->lazy_state[slot] = LazySlot::Building;
    const unsigned generation = p->prep_generation;
    std::string source = p->lazy_source, options = p->lazy_options;
    lock.unlock();
    std::string why = "the app ended";
    cl_program prog = app_exiting() ? nullptr : build_slot(p, slot, &source, options, nullptr, &why);
    lock.lock();
    publish_lazy(p, slot, generation, prog, why);
    p->prep_cv.notify_all();
  }
  if (p->lazy_state[slot] == LazySlot::Building) {
    if (!wait) return nullptr;
    p->prep_cv.wait(lock, [&] { return p->lazy_state[slot] != LazySlot::Building; });
  }
  if (p->lazy_state[slot] != LazySlot::Built) return nullptr;
  cl_program prog = p->lazy_built[slot];
  p->lazy_built[slot] = nullptr;
  p->lazy_state[slot] = LazySlot::None;
  p->per_platform[slot] = prog;
  return prog;
}

}  // namespace libsplit
