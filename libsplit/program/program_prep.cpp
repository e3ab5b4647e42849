// Preparing an app program for execution on libsplit's devices. For source
// programs this runs off the app's critical path: clBuildProgram starts a
// background job that first builds the original source per platform (the
// first launches run whole on it, exactly like the app alone), then runs
// libsplit-cc and builds the partition-ready program; the launch thread
// adopts the result at the next launch.
#include "program_prep.h"

#include "binary_origins.h"
#include "build_client.h"
#include "cc_client.h"
#include "child_process.h"
#include "device_binaries.h"
#include "device_macros.h"
#include "program_source.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace libsplit {

using Mode = _cl_program::Mode;

// What preparing decided, before it is adopted by the program.
struct PreparedProgram {
  Mode mode = Mode::Failed;
  std::string reason;
  std::optional<ProgramSummary> summary;
  std::vector<cl_program> per_platform;  // null for the lazy slots
  std::string lazy_source;  // what the slots left null build when first needed
  std::string lazy_options;
  std::vector<bool> lazy_cached;  // by slot: lazy_source's device binaries are cached
};

namespace {

// Set when the app ends: background jobs make no further driver call.
std::atomic<bool> g_exiting{false};

// Set on the threads of background jobs once they build what no launch
// waits for (the partition-ready program, lazy slots): their builds from
// source go to libsplit-build (build_client.h), which the app's exit can
// stop. Builds the app waits for (the originals of its first launches,
// synchronous preparation, a split wanting a device now) stay in the app's
// process: a helper costs a process start and a driver initialisation on top.
thread_local bool t_background_job = false;

// The partition-ready kernels are created on the app's thread at their first
// launch. On 2 H100 the first warm run of 6 of 23 bench apps stalled one
// iteration for 1.0-1.5 s at the launch that adopted the partition-ready
// program, and no later run did (NVIDIA finishing the program's load, then
// cached by its compute cache). Creating the kernels once here, in the
// background, is meant to move that work off the app's path.
void load_kernels(cl_program prog) {
  cl_uint n = 0;
  if (real().clCreateKernelsInProgram(prog, 0, nullptr, &n) != CL_SUCCESS || n == 0) return;
  std::vector<cl_kernel> kernels(n);
  if (real().clCreateKernelsInProgram(prog, n, kernels.data(), nullptr) != CL_SUCCESS) return;
  for (cl_kernel k : kernels) real().clReleaseKernel(k);
}

struct Built {
  std::vector<cl_program> programs;  // by platform slot, null where it failed
  bool all = true;
  std::string why;
};

// Binaries for some devices (the app's, or those of its own build).
struct Binaries {
  std::vector<cl_device_id> devices;
  std::vector<std::vector<unsigned char>> data;
};

std::string build_log(cl_program prog, cl_device_id id) {
  size_t n = 0;
  real().clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  real().clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log.substr(0, 300);
}

std::vector<cl_device_id> slot_devices(unsigned slot) {
  std::vector<cl_device_id> ids;
  for (auto& d : runtime().devices)
    if (d.slot == slot) ids.push_back(d.id);
  return ids;
}

// A source program built for `ids` on a slot's context from the device
// binaries of an earlier build of the same source (device_binaries.h).
cl_program from_device_binaries(unsigned slot, const std::vector<cl_device_id>& ids,
                                const std::string& key, const std::string& options) {
  auto bins = load_device_binaries(key, ids.size());
  if (!bins) return nullptr;
  std::vector<size_t> lengths;
  std::vector<const unsigned char*> ptrs;
  for (auto& b : *bins) lengths.push_back(b.size()), ptrs.push_back(b.data());
  cl_int err = CL_SUCCESS;
  cl_program prog = real().clCreateProgramWithBinary(runtime().context(slot), cl_uint(ids.size()), ids.data(),
                                                     lengths.data(), ptrs.data(), nullptr, &err);
  if (prog && real().clBuildProgram(prog, cl_uint(ids.size()), ids.data(), options.c_str(), nullptr,
                                    nullptr) == CL_SUCCESS)
    return prog;
  if (prog) real().clReleaseProgram(prog);
  return nullptr;
}

// Whether the app's build of p made an executable for every device of `ids`
// (PoCL reports CL_BUILD_SUCCESS even for the context's devices the app did
// not build for: the app's device list is what counts).
bool built_for(cl_program p, const std::vector<cl_device_id>& ids) {
  for (cl_device_id id : ids)
    if (std::find(p->built_devices.begin(), p->built_devices.end(), id) == p->built_devices.end())
      return false;
  return !ids.empty();
}

// Which platform slots hold a device of the app's context.
std::vector<bool> app_slots(cl_program p) {
  Runtime& rt = runtime();
  std::vector<bool> app(rt.platforms.size(), false);
  for (cl_device_id id : p->context->devices)
    if (int d = rt.device_index(id); d >= 0) app[rt.devices[d].slot] = true;
  return app;
}

// The platform slots, those holding the app's own devices first (a program
// still preparing runs there).
std::vector<unsigned> slot_order(cl_program p) {
  Runtime& rt = runtime();
  std::vector<unsigned> order;
  for (cl_device_id id : p->context->devices)
    if (int d = rt.device_index(id); d >= 0 &&
        std::find(order.begin(), order.end(), rt.devices[d].slot) == order.end())
      order.push_back(rt.devices[d].slot);
  for (unsigned s = 0; s < rt.platforms.size(); ++s)
    if (std::find(order.begin(), order.end(), s) == order.end()) order.push_back(s);
  return order;
}

// Builds `source` (through cached device binaries when it was built before),
// else `binaries`, else p's IL on platform slot s; null (`why` set when the
// build failed) where it cannot.
cl_program build_slot(cl_program p, unsigned s, const std::string* source, const std::string& options,
                      const Binaries* binaries, std::string* why) {
  Runtime& rt = runtime();
  std::vector<cl_device_id> ids = slot_devices(s);
  cl_int err = CL_SUCCESS;
  cl_program prog = nullptr;
  std::string key;
  const cl_ulong slot_start = now_ns();
  if (source) {
    key = device_binary_key(*source, options, ids);
    if (cl_program cached = from_device_binaries(s, ids, key, options)) {
      log_line(2, "preparation: platform slot " + std::to_string(s) + " from cached binaries in " +
                      std::to_string((now_ns() - slot_start) / 1000000) + " ms");
      return cached;
    }
    if (t_background_job) {
      const HelperBuild helper = build_in_helper(s, ids, *source, options);
      if (helper.result == HelperBuild::Failed) {
        const int d = rt.device_index(ids[0]);
        *why = "build failed on " + (d >= 0 ? rt.devices[d].name : std::string("a device")) + ": " + helper.log;
        return nullptr;
      }
      if (helper.result == HelperBuild::Stored)
        if (cl_program built = from_device_binaries(s, ids, key, options)) {
          log_line(2, "preparation: platform slot " + std::to_string(s) + " built in " +
                          std::to_string((now_ns() - slot_start) / 1000000) + " ms (libsplit-build)");
          return built;
        }
      // The app ended meanwhile: no driver build starts now.
      if (g_exiting) {
        *why = "the app ended";
        return nullptr;
      }
    }
    const char* text = source->c_str();
    prog = real().clCreateProgramWithSource(rt.context(s), 1, &text, nullptr, &err);
  } else if (binaries) {
    // Binaries only exist for the devices they were made for.
    std::vector<cl_device_id> have;
    std::vector<size_t> lengths;
    std::vector<const unsigned char*> bins;
    for (size_t i = 0; i < binaries->devices.size(); ++i)
      for (cl_device_id id : ids)
        if (id == binaries->devices[i]) {
          have.push_back(id);
          lengths.push_back(binaries->data[i].size());
          bins.push_back(binaries->data[i].data());
        }
    ids = have;
    if (!ids.empty())
      prog = real().clCreateProgramWithBinary(rt.context(s), static_cast<cl_uint>(ids.size()),
                                              ids.data(), lengths.data(), bins.data(), nullptr, &err);
  } else if (!p->il.empty()) {
    prog = real().clCreateProgramWithIL(rt.context(s), p->il.data(), p->il.size(), &err);
  }
  if (!prog) return nullptr;
  err = real().clBuildProgram(prog, static_cast<cl_uint>(ids.size()), ids.data(), options.c_str(),
                              nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const int d = rt.device_index(ids[0]);
    *why = "build failed on " + (d >= 0 ? rt.devices[d].name : std::string("a device")) + ": " +
           build_log(prog, ids[0]);
    real().clReleaseProgram(prog);
    return nullptr;
  }
  log_line(2, "preparation: platform slot " + std::to_string(s) + " built in " +
                  std::to_string((now_ns() - slot_start) / 1000000) + " ms");
  if (source) store_device_binaries(key, prog, ids.size());
  return prog;
}

// build_slot on every platform slot (only the slots of the app's context
// with `app_slots_only`); `built(slot, program)` hears of each slot as soon
// as it is ready. Slots where `ready` holds a program take it as built (one
// more reference).
Built build_per_slot(cl_program p, const std::string* source, const std::string& options,
                     const Binaries* binaries = nullptr,
                     const std::function<void(unsigned, cl_program)>& built = nullptr,
                     const std::vector<cl_program>* ready = nullptr, bool app_slots_only = false) {
  Runtime& rt = runtime();
  Built out;
  out.programs.assign(rt.platforms.size(), nullptr);
  std::vector<bool> app_slot = app_slots(p);
  for (unsigned s : slot_order(p)) {
    if (app_slots_only && !app_slot[s]) continue;
    if (g_exiting) {
      out.all = false;
      out.why = "the app ended";
      break;
    }
    if (ready && s < ready->size() && (*ready)[s]) {
      real().clRetainProgram((*ready)[s]);
      out.programs[s] = (*ready)[s];
      continue;
    }
    out.programs[s] = build_slot(p, s, source, options, binaries, &out.why);
    if (!out.programs[s]) {
      out.all = false;
      continue;
    }
    if (built) built(s, out.programs[s]);
  }
  return out;
}

// A linked program whose units are known: each unit compiled and all of them
// linked on every platform slot, as the app did on its own devices.
Built link_per_slot(cl_program p) {
  Runtime& rt = runtime();
  Built out;
  out.programs.assign(rt.platforms.size(), nullptr);
  const std::string link_options = link_options_for_build(p->link_options);
  for (unsigned s = 0; s < rt.platforms.size(); ++s) {
    std::vector<cl_device_id> ids = slot_devices(s);
    std::vector<cl_program> objects;
    bool ok = true;
    for (const CompileUnit& unit : p->units) {
      cl_int err = CL_SUCCESS;
      const char* text = unit.source.c_str();
      cl_program obj = real().clCreateProgramWithSource(rt.context(s), 1, &text, nullptr, &err);
      if (!obj) {
        ok = false;
        break;
      }
      objects.push_back(obj);
      err = real().clCompileProgram(obj, static_cast<cl_uint>(ids.size()), ids.data(),
                                    unit.options.c_str(), 0, nullptr, nullptr, nullptr, nullptr);
      if (err != CL_SUCCESS) {
        out.why = "compile failed on " + rt.devices[0].name + ": " + build_log(obj, ids[0]);
        ok = false;
        break;
      }
    }
    cl_program linked = nullptr;
    if (ok) {
      cl_int err = CL_SUCCESS;
      linked = real().clLinkProgram(rt.context(s), static_cast<cl_uint>(ids.size()), ids.data(),
                                    link_options.c_str(), static_cast<cl_uint>(objects.size()),
                                    objects.data(), nullptr, nullptr, &err);
      if (linked && err != CL_SUCCESS) {
        out.why = "link failed: " + build_log(linked, ids[0]);
        real().clReleaseProgram(linked);
        linked = nullptr;
      } else if (!linked) {
        out.why = "link failed (" + std::to_string(err) + ")";
      }
    }
    for (cl_program obj : objects) real().clReleaseProgram(obj);
    if (!linked) {
      out.all = false;
      continue;
    }
    out.programs[s] = linked;
  }
  return out;
}

// The executable the app's own build made, as binaries for the app's devices
// (the last resort: those devices run the program whole).
Binaries native_binaries(cl_program p) {
  Binaries out;
  cl_uint n = 0;
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, nullptr) != CL_SUCCESS || !n)
    return out;
  std::vector<cl_device_id> ids(n);
  std::vector<size_t> sizes(n, 0);
  real().clGetProgramInfo(p->native, CL_PROGRAM_DEVICES, n * sizeof(cl_device_id), ids.data(), nullptr);
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_BINARY_SIZES, n * sizeof(size_t), sizes.data(),
                              nullptr) != CL_SUCCESS)
    return out;
  std::vector<std::vector<unsigned char>> bins(n);
  std::vector<unsigned char*> ptrs(n);
  for (cl_uint i = 0; i < n; ++i) bins[i].resize(sizes[i]), ptrs[i] = bins[i].data();
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_BINARIES, n * sizeof(unsigned char*), ptrs.data(),
                              nullptr) != CL_SUCCESS)
    return out;
  for (cl_uint i = 0; i < n; ++i)
    if (sizes[i]) out.devices.push_back(ids[i]), out.data.push_back(std::move(bins[i]));
  return out;
}

// States of a platform slot whose program is built when first needed.
namespace LazySlot {
constexpr unsigned char None = 0;      // nothing to build (built, or not lazy)
constexpr unsigned char Pending = 1;   // not started
constexpr unsigned char Building = 2;  // under way (background or a launch)
constexpr unsigned char Built = 3;     // in lazy_built, to be taken by a launch
constexpr unsigned char Failed = 4;
// Not cached: the build waits until the run is long enough to pay for it
// from the exploration budget (kOtherPlatformBuildSeconds), or a split
// needs the device.
constexpr unsigned char Deferred = 5;
}  // namespace LazySlot

// What a platform's first build of a program is taken to cost: PoCL's build
// of a partition-ready program took 0.76-1.2 s on the GPU node, waited for at
// exit when the app ended meanwhile (a driver torn down under a build
// crashes). Paid from the exploration budget: with the default 2 % the other
// platform is first explored after 50 s of the program's launches, at once
// when its binaries are cached.
constexpr double kOtherPlatformBuildSeconds = 1.0;

// The cached-binaries test of each slot left for later (in the background:
// it hashes the source).
std::vector<bool> cached_slots(const std::vector<cl_program>& built, const std::string& source,
                               const std::string& options) {
  std::vector<bool> cached(built.size(), false);
  for (unsigned s = 0; s < built.size(); ++s)
    if (!built[s]) cached[s] = has_device_binaries(device_binary_key(source, options, slot_devices(s)));
  return cached;
}

void release_all(std::vector<cl_program>& programs) {
  for (cl_program pp : programs)
    if (pp) real().clReleaseProgram(pp);
  programs.clear();
}

// A source program: the partition-ready program from libsplit-cc, else the
// original source (reusing `originals` when every slot has one); nothing
// when the source does not build on every slot (`why` says why).
std::optional<PreparedProgram> prepare_source(cl_program p, const std::string& source,
                                              const std::string& options,
                                              const std::vector<cl_program>* originals,
                                              std::string* why) {
  Runtime& rt = runtime();
  PreparedProgram out;
  std::string cc = find_cc(rt.controls.cc);
  if (cc.empty()) {
    *why = "libsplit-cc not found";
  } else {
    std::vector<cl_device_id> ids;
    for (const auto& d : rt.devices) ids.push_back(d.id);
    std::vector<std::string> sets = device_macro_sets(ids, options);
    std::string listed;
    for (const auto& set : sets) listed += (listed.empty() ? "" : " | ") + set;
    log_line(2, "libsplit-cc device macro sets (options '" + options + "'): " + listed);
    const cl_ulong cc_start = now_ns();
    CcResult r = g_exiting ? CcResult{} : run_cc(cc, source, options, sets);
    log_line(2, "preparation: libsplit-cc ran " + std::to_string((now_ns() - cc_start) / 1000000) + " ms");
    if (g_exiting) {
      *why = "the app ended";
      out.mode = Mode::Failed;
      return out;
    }
    if (!r.ok) {
      *why = r.error;
    } else {
      std::string perr;
      auto summary = parse_summary(r.summary_json, &perr);
      if (!summary) {
        *why = "unreadable summary: " + perr;
      } else {
        Built b = build_per_slot(p, &r.partition_ready, options, nullptr, nullptr, nullptr,
                                 /*app_slots_only=*/true);
        if (b.all) {
          out.mode = Mode::Compiled;
          out.summary = std::move(summary);
          out.per_platform = std::move(b.programs);
          out.lazy_cached = cached_slots(out.per_platform, r.partition_ready, options);
          out.lazy_source = std::move(r.partition_ready);
          out.lazy_options = options;
          return out;
        }
        release_all(b.programs);
        *why = b.why.empty() ? "partition-ready program did not build" : b.why;
      }
    }
  }
  const bool plain = rt.controls.plain_split && plain_split_safe(source);
  const std::vector<bool> app = app_slots(p);
  bool have_originals = originals != nullptr;
  for (size_t s = 0; have_originals && s < originals->size(); ++s)
    have_originals = !app[s] || (*originals)[s];
  if (have_originals) {
    for (cl_program pp : *originals)
      if (pp) real().clRetainProgram(pp);
    out.per_platform = *originals;
  } else {
    Built b = build_per_slot(p, &source, options, nullptr, nullptr, nullptr, /*app_slots_only=*/true);
    if (!b.all) {
      release_all(b.programs);
      if (!b.why.empty()) *why = b.why;
      return std::nullopt;
    }
    out.per_platform = std::move(b.programs);
  }
  out.lazy_source = source;
  out.lazy_options = options;
  out.lazy_cached = cached_slots(out.per_platform, source, options);
  out.mode = plain ? Mode::Plain : Mode::Whole;
  out.reason = *why;
  log_line(1, "program not partition-ready (" + *why + "); kernels " +
                  (plain ? "split without rewrite (plain, whole-buffer merge)" : "run unsplit"));
  return out;
}

// Any program: its source (or the source of a binary libsplit handed out),
// else its separately compiled units linked again, else binaries or IL run
// whole (the app's, else those of the app's own build), else nothing.
PreparedProgram prepare(cl_program p, const std::string& source, const std::string& options,
                        const std::vector<cl_program>* originals) {
  Runtime& rt = runtime();
  std::string why;
  if (p->from_source) {
    if (auto r = prepare_source(p, source, options, originals, &why)) return std::move(*r);
  } else if (p->il.empty() && !p->binaries.empty()) {
    std::string dir = binary_origins_dir(rt.controls.cache_dir);
    if (auto origin = find_binary_origin(dir, p->binaries, &why)) {
      log_line(1, "program from a binary libsplit handed out: source and options restored");
      if (auto r = prepare_source(p, origin->source, origin->options, nullptr, &why))
        return std::move(*r);
    }
  }
  PreparedProgram out;
  if (p->units_known && !p->units.empty()) {
    bool plain = rt.controls.plain_split;
    for (const CompileUnit& u : p->units) plain &= plain_split_safe(u.source);
    Built b = link_per_slot(p);
    if (b.all) {
      out.mode = plain ? Mode::Plain : Mode::Whole;
      out.reason = "linked from separately compiled units";
      out.per_platform = std::move(b.programs);
      log_line(1, "program linked from " + std::to_string(p->units.size()) + " units; kernels " +
                      (plain ? "split without rewrite (plain)" : "run unsplit"));
      return out;
    }
    release_all(b.programs);
    if (!b.why.empty()) why = b.why;
  }
  // Binaries or IL: the app's, else those of the app's own build (its
  // devices then run the kernels whole).
  Binaries own;
  for (size_t i = 0; i < p->binary_devices.size(); ++i)
    own.devices.push_back(p->binary_devices[i]), own.data.push_back(p->binaries[i]);
  if (own.devices.empty() && p->il.empty()) own = native_binaries(p);
  if (!own.devices.empty() || !p->il.empty()) {
    Built b = build_per_slot(p, nullptr, options, own.devices.empty() ? nullptr : &own);
    bool any = false;
    for (cl_program pp : b.programs) any |= pp != nullptr;
    if (any) {
      out.mode = Mode::Whole;
      out.reason = p->from_source || p->units_known
                       ? "source did not build on libsplit's devices: " + why + "; the app's binaries run"
                       : !p->il.empty() ? "a program from IL (no OpenCL C source)"
                       : !why.empty() ? why
                       : "program from binary, or linked from objects of unknown source";
      out.per_platform = std::move(b.programs);
      log_line(1, "program not partition-ready (" + out.reason + "); kernels run unsplit");
      return out;
    }
    if (why.empty()) why = b.why;
    release_all(b.programs);
  }
  out.mode = Mode::Failed;
  out.reason = why;
  return out;
}

// Makes `r` the program's execution side (under the exec lock).
void adopt(cl_program p, PreparedProgram&& r) {
  release_all(p->per_platform);
  p->per_platform = std::move(r.per_platform);
  p->summary = std::move(r.summary);
  p->mode = r.mode;
  p->mode_reason = r.reason;
  p->lazy_source = std::move(r.lazy_source);
  p->lazy_options = std::move(r.lazy_options);
  p->lazy_failed = false;
  {
    std::lock_guard lock(p->prep_mutex);
    release_all(p->lazy_built);
    p->lazy_built.assign(p->per_platform.size(), nullptr);
    p->lazy_state.assign(p->per_platform.size(), LazySlot::None);
    p->lazy_cached = std::move(r.lazy_cached);
    p->lazy_cached.resize(p->per_platform.size(), false);
    if (!p->lazy_source.empty())
      for (size_t s = 0; s < p->per_platform.size(); ++s)
        if (!p->per_platform[s])
          p->lazy_state[s] = p->lazy_cached[s] ? LazySlot::Pending : LazySlot::Deferred;
  }
  if (r.mode == Mode::Failed) {
    log_line(1, "cannot build the program on libsplit's devices: " + r.reason);
  }
}

// Background jobs still running (a driver torn down under a running build
// crashes). At the app's end (before_exit) the jobs stop at their next step and the
// process waits for the step under way (a driver call), at most kExitWait.
std::mutex g_jobs_mutex;
// Never destroyed: a job still running when before_exit gave up waiting for
// it wakes this after exit() has run the static destructors.
std::condition_variable& g_jobs_cv = *new std::condition_variable;
unsigned g_jobs = 0;
constexpr auto kExitWait = std::chrono::seconds(10);

// The last step of a background job. The waiter is woken under the lock:
// before_exit reads the count under it, so the app's exit cannot run while
// the job is still inside notify_all (it did, TSan: the static destructors
// destroyed the condition variable under a job's broadcast).
void job_done() {
  std::lock_guard lock(g_jobs_mutex);
  --g_jobs;
  g_jobs_cv.notify_all();
}

std::string ms_since(cl_ulong t0) { return std::to_string((now_ns() - t0) / 1000000) + " ms"; }

}  // namespace

void before_exit() {
  g_exiting = true;
  if (unsigned stopped = stop_helpers())
    log_line(2, "exit: stopped " + std::to_string(stopped) + " helper(s) building or compiling in the background");
  {
    std::unique_lock lock(g_jobs_mutex);
    if (g_jobs > 0) {
      const cl_ulong t0 = now_ns();
      bool done = g_jobs_cv.wait_for(lock, kExitWait, [] { return g_jobs == 0; });
      log_line(1, std::string("exit: ") + (done ? "waited " : "gave up after ") +
                      std::to_string((now_ns() - t0) / 1000000) + " ms for background preparation");
    }
  }
  // Commands libsplit queued may still run in driver threads (a probe on a
  // PoCL device compiles its kernel there at the first run): the process
  // must not tear the drivers down under them. On the GPU node 2 of 22 runs
  // of syr2k large crashed in LLVM's code generation inside a PoCL worker
  // thread after main returned.
  if (Runtime* rt = runtime_if_started(); rt && rt->splitting && rt->attached) {
    const cl_ulong t0 = now_ns();
    rt->stop_opening();  // the devices opening in the background: not torn down under it
    for (const Device& d : rt->devices)
      for (cl_command_queue q : {d.queue, d.probe_queue})
        if (q) real().clFinish(q);
    log_line(2, "exit: device queues finished in " + std::to_string((now_ns() - t0) / 1000) + " us");
  }
}

bool plain_split_safe(std::string_view source) {
  for (const char* word : {"get_group_id", "get_num_groups", "get_global_size", "get_global_offset",
                           "get_global_linear_id", "get_enqueued", "atomic", "atom_", "image",
                           "pipe", "sampler", "enqueue_kernel", "__builtin"})
    if (source.find(word) != std::string_view::npos) return false;
  return true;
}

namespace {

// The background job: builds the originals still missing, then the
// partition-ready program; `ready` slots (one reference each, released here)
// are built already. With `originals_only` it stops after the originals and
// leaves the rest deferred (maybe_start_deferred).
void start_job(cl_program p, unsigned generation, std::vector<cl_program> ready,
               bool originals_only = false) {
  {
    std::lock_guard lock(g_jobs_mutex);
    ++g_jobs;
  }
  retain(p);
  std::thread([p, generation, originals_only, source = p->source, options = p->options,
               ready = std::move(ready)]() mutable {
    const cl_ulong t0 = now_ns();
    // Each slot's original is published as soon as it is built: the first
    // launches need only the app's device's. Other platforms get none: their
    // devices run the partition-ready program, whole launches included (a
    // kernel's whole range is the same work either way), and on a GPU node
    // the CPU's compile of the original cost 1.3 s of a fresh machine's first
    // run, waited for at exit.
    Built originals = build_per_slot(p, &source, options, nullptr, [&](unsigned slot, cl_program prog) {
      {
        std::lock_guard lock(p->prep_mutex);
        if (generation != p->prep_generation) return;
        real().clRetainProgram(prog);
        p->originals[slot] = prog;
      }
      p->prep_cv.notify_all();
    }, &ready, /*app_slots_only=*/true);
    release_all(ready);
    log_line(2, "preparation: original source built in " + ms_since(t0));
    bool current;
    // A failed original goes on to the full preparation, whose answer the
    // waiting launches need.
    const bool defer = originals_only && originals.all && !g_exiting;
    {
      std::lock_guard lock(p->prep_mutex);
      current = generation == p->prep_generation;
      if (current && defer) {
        // The originals serve the first launches; the rest waits until the
        // program's launches prove long enough to be worth it.
        release_all(p->deferred_ready);
        p->deferred_ready.swap(originals.programs);
        p->first_launch_ns = 0;
        p->prep_deferred = true;
      }
    }
    if (defer) {
      release_all(originals.programs);
      p->prep_cv.notify_all();
      release(p);
      job_done();
      return;
    }
    auto prepared = std::make_shared<PreparedProgram>();
    // The originals above stay in the app's process (its first launches wait
    // for them: a helper's start would delay them); the rest goes to helpers.
    t_background_job = true;
    if (current && !g_exiting) {
      *prepared = prepare(p, source, options, originals.all ? &originals.programs : nullptr);
      for (cl_program prog : prepared->per_platform)
        if (prog && !g_exiting) load_kernels(prog);
      log_line(1, std::string("preparation: ") +
                      (prepared->mode == Mode::Compiled ? "partition-ready program" : "program") +
                      " ready after " + ms_since(t0) + " in the background");
    }
    release_all(originals.programs);
    {
      // A job cut short by the app's end publishes nothing: launches still
      // racing with exit() keep running on the originals.
      std::lock_guard lock(p->prep_mutex);
      if (generation == p->prep_generation && !g_exiting) p->prepared = std::move(prepared);
      else release_all(prepared->per_platform);
    }
    p->prep_cv.notify_all();
    release(p);
    job_done();
  }).detach();
}

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

}  // namespace

void start_preparation(cl_program p) {
  Runtime& rt = runtime();
  release_all(p->per_platform);
  p->summary.reset();
  unsigned generation;
  {
    std::lock_guard lock(p->prep_mutex);
    generation = ++p->prep_generation;
    p->prepared.reset();
    release_all(p->originals);
    p->originals.assign(rt.platforms.size(), nullptr);
    release_all(p->deferred_ready);
    p->prep_deferred = false;
    release_all(p->lazy_built);
    p->lazy_state.clear();
  }
  if (!p->from_source || rt.controls.sync_prepare) {
    p->mode = Mode::Unprepared;
    prepare_program(p, 0);
    return;
  }
  p->mode = Mode::Preparing;
  // Where libsplit shares the app's context (runtime.h), the app's own build
  // is that slot's original: the first launches need nothing more.
  std::vector<cl_program> ready(rt.platforms.size(), nullptr);
  for (unsigned s = 0; s < rt.platforms.size(); ++s)
    if (rt.device_slot_open(s) && rt.contexts[s] == p->context->real && built_for(p, slot_devices(s))) {
      real().clRetainProgram(p->native);
      ready[s] = p->native;
      log_line(2, "preparation: the app's build is the original of platform slot " + std::to_string(s));
    }
  {
    std::lock_guard lock(p->prep_mutex);
    for (unsigned s = 0; s < ready.size(); ++s)
      if (ready[s]) {
        real().clRetainProgram(ready[s]);
        p->originals[s] = ready[s];
      }
  }
  // Every device of the app's context has its original already: nothing
  // waits for the job, which can wait until the program proves long enough.
  // Not where the app's device has a twin: an even split with it is the
  // first plan, and on 2 H200 deferring kept matmul whole for 15 of its 30
  // launches (0.96 x one GPU instead of ~0.6).
  bool defer = rt.controls.prepare_after_ms > 0;
  for (cl_device_id id : p->context->devices)
    if (int d = rt.device_index(id); d >= 0 && rt.devices[d].has_twin) defer = false;
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

void prepare_program(cl_program p, unsigned home) {
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

void remember_binaries(cl_program p, const unsigned char* const* binaries, size_t count) {
  std::string source = p->source, options = p->options;
  if (!p->from_source) {
    // A program restored from a binary hands out binaries of the same source.
    std::string why;
    auto origin = find_binary_origin(binary_origins_dir(runtime().controls.cache_dir), p->binaries, &why);
    if (!origin) return;
    source = std::move(origin->source);
    options = std::move(origin->options);
  }
  std::vector<size_t> sizes(count, 0);
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_BINARY_SIZES, count * sizeof(size_t),
                              sizes.data(), nullptr) != CL_SUCCESS)
    return;
  // Only executables: a compiled object or library binary was made with
  // clCompileProgram's options, not the ones recorded here.
  std::vector<cl_device_id> devices(count, nullptr);
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_DEVICES, count * sizeof(cl_device_id),
                              devices.data(), nullptr) != CL_SUCCESS)
    return;
  std::string dir = binary_origins_dir(runtime().controls.cache_dir);
  for (size_t i = 0; i < count; ++i) {
    if (!binaries[i] || !sizes[i] || !devices[i]) continue;
    cl_program_binary_type type = CL_PROGRAM_BINARY_TYPE_NONE;
    if (real().clGetProgramBuildInfo(p->native, devices[i], CL_PROGRAM_BINARY_TYPE, sizeof type, &type,
                                     nullptr) != CL_SUCCESS ||
        type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
      continue;
    std::string why;
    if (!record_binary_origin(dir, binaries[i], sizes[i], {source, options}, &why))
      log_line(1, "binary handed out but not recorded: " + why);
  }
}

namespace {

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

// Builds a lazy slot in the background (lock: prep_mutex, state Pending).
void start_lazy_build(cl_program p, unsigned slot, std::unique_lock<std::mutex>& lock) {
  p->lazy_state[slot] = LazySlot::Building;
  {
    std::lock_guard jobs(g_jobs_mutex);
    ++g_jobs;
  }
  retain(p);
  log_line(2, "preparation: platform slot " + std::to_string(slot) + " is wanted, built in the background");
  std::thread([p, slot, generation = p->prep_generation, source = p->lazy_source,
               options = p->lazy_options] {
    t_background_job = true;
    std::string why = "the app ended";
    cl_program prog = g_exiting ? nullptr : build_slot(p, slot, &source, options, nullptr, &why);
    {
      std::lock_guard lock(p->prep_mutex);
      publish_lazy(p, slot, generation, prog, why);
    }
    p->prep_cv.notify_all();
    release(p);
    job_done();
  }).detach();
  (void)lock;
}

// The program of a lazy slot (under the exec lock): taken when built;
// else, with `wait`, built here or waited for; else its background build
// is started and the answer is null for now.
cl_program take_lazy_slot(cl_program p, unsigned slot, bool wait, bool wanted = false) {
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
      if (!g_exiting) start_lazy_build(p, slot, lock);
      return nullptr;
    }
    // A split wants the device now (its data is being staged for it).
    p->lazy_state[slot] = LazySlot::Building;
    const unsigned generation = p->prep_generation;
    std::string source = p->lazy_source, options = p->lazy_options;
    lock.unlock();
    std::string why = "the app ended";
    cl_program prog = g_exiting ? nullptr : build_slot(p, slot, &source, options, nullptr, &why);
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

cl_kernel kernel_of(cl_kernel k, unsigned device, bool original, cl_int* err) {
  Runtime& rt = runtime();
  std::vector<cl_kernel>& kernels = original ? k->per_device_original : k->per_device;
  const std::vector<cl_program>& programs = original ? k->program->originals : k->program->per_platform;
  if (kernels.size() < rt.devices.size()) kernels.resize(rt.devices.size(), nullptr);
  if (!kernels[device]) {
    unsigned slot = rt.devices[device].slot;
    cl_program p = slot < programs.size() ? programs[slot] : nullptr;
    if (!p && !original) p = take_lazy_slot(k->program, slot, /*wait=*/true);
    if (!p) {
      *err = CL_INVALID_PROGRAM_EXECUTABLE;
      return nullptr;
    }
    kernels[device] = real().clCreateKernel(p, k->name.c_str(), err);
    if (!kernels[device]) return nullptr;
  }
  *err = CL_SUCCESS;
  return kernels[device];
}

}  // namespace

bool device_ready(cl_kernel k, unsigned device) {
  if (!runtime().device_open(device)) return false;
  cl_program p = k->program;
  const unsigned slot = runtime().devices[device].slot;
  if (p->mode == Mode::Preparing) return false;
  if (slot < p->per_platform.size() && p->per_platform[slot]) return true;
  return take_lazy_slot(p, slot, /*wait=*/false) != nullptr;
}

bool devices_ready(cl_kernel k, const std::vector<unsigned>& devices) {
  cl_program p = k->program;
  bool ready = p->mode != Mode::Preparing;
  Runtime& rt = runtime();
  for (unsigned d : devices) {
    if (!rt.device_open(d)) {
      if (!rt.controls.sync_prepare) return false;  // its context is still opening
      rt.wait_open();
      if (!rt.device_open(d)) return false;
    }
    const unsigned slot = rt.devices[d].slot;
    if (slot < p->per_platform.size() && p->per_platform[slot]) continue;
    // Not waited for (unless preparation is synchronous): the 4-H100 node
    // stalled 0.7-1.2 s at the first split of most apps, building PoCL's
    // program for a CPU the split did not even use.
    if (!take_lazy_slot(p, slot, /*wait=*/rt.controls.sync_prepare, /*wanted=*/true)) ready = false;
  }
  return ready;
}

cl_kernel device_kernel(cl_kernel k, unsigned device, cl_int* err) {
  return kernel_of(k, device, k->program->mode == Mode::Preparing, err);
}

cl_kernel whole_kernel(cl_kernel k, unsigned device, cl_int* err, bool* original) {
  cl_program p = k->program;
  const unsigned slot = runtime().devices[device].slot;
  bool have_original;
  {
    std::lock_guard lock(p->prep_mutex);
    have_original = slot < p->originals.size() && p->originals[slot];
  }
  *original = have_original;
  if (have_original) {
    if (cl_kernel dk = kernel_of(k, device, true, err)) return dk;
    *original = false;
  }
  return device_kernel(k, device, err);
}

cl_int check_executable(cl_kernel k, unsigned device) {
  Runtime& rt = runtime();
  cl_program p = k->program;
  if (p->mode == Mode::Unprepared || p->mode == Mode::Preparing) {
    std::lock_guard exec(rt.exec_mutex);
    prepare_program(p, device);
  }
  unsigned slot = rt.devices[device].slot;
  // Still preparing: prepare_program returned because the original source
  // is built for this device's platform.
  if (p->mode == Mode::Preparing) return CL_SUCCESS;
  cl_program built = p->mode != Mode::Failed && slot < p->per_platform.size() ? p->per_platform[slot] : nullptr;
  bool has_device = built != nullptr;
  if (built && p->mode == Mode::Whole) {
    // Programs from binaries exist only for the devices that had one.
    cl_uint n = 0;
    real().clGetProgramInfo(built, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, nullptr);
    std::vector<cl_device_id> ids(n);
    real().clGetProgramInfo(built, CL_PROGRAM_DEVICES, n * sizeof(cl_device_id), ids.data(), nullptr);
    has_device = std::find(ids.begin(), ids.end(), rt.devices[device].id) != ids.end();
  }
  if (has_device) return CL_SUCCESS;
  log_line(1, "launch of " + k->name + " refused (CL_INVALID_PROGRAM_EXECUTABLE): no executable on " +
                  rt.devices[device].name + (p->mode_reason.empty() ? "" : ": " + p->mode_reason));
  return CL_INVALID_PROGRAM_EXECUTABLE;
}

bool non_uniform_allowed(cl_device_id device, cl_program p) {
  std::string options = p->options + " " + p->link_options;
  for (const CompileUnit& u : p->units) options += " " + u.options;
  if (options.find("-cl-uniform-work-group-size") != std::string::npos) return false;
  if (options.find("-cl-std=CL2") == std::string::npos && options.find("-cl-std=CL3") == std::string::npos)
    return false;
  cl_bool support = CL_FALSE;
  if (real().clGetDeviceInfo(device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof support,
                             &support, nullptr) == CL_SUCCESS)
    return support == CL_TRUE;
  char version[64] = {};
  real().clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof version - 1, version, nullptr);
  return std::string_view(version).rfind("OpenCL 2.", 0) == 0;
}

}  // namespace libsplit
