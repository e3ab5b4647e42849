// clEnqueueNDRangeKernel: validation at enqueue; at execution the launch is
// described once (arguments, summary, split dimension), the scheduler plans
// it, and one stage runs it (launch.h lists the stages).
#include "launch.h"

#include "device_kernel_args.h"
#include "executables.h"
#include "image_data.h"
#include "indirect_regions.h"
#include "real_api.h"
#include "reduction.h"
#include "sampler_data.h"
#include "slice_bytes.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

namespace libsplit {

namespace {

int64_t scalar_value(const ArgValue& a, const ArgSummary* s) {
  int64_t v = 0;
  bool is_unsigned = s && (s->type.rfind("u", 0) == 0 || s->type == "size_t" || s->type.find("unsigned") != std::string::npos);
  switch (a.bytes.size()) {
    case 1: { int8_t x; std::memcpy(&x, a.bytes.data(), 1); v = is_unsigned ? static_cast<uint8_t>(x) : x; break; }
    case 2: { int16_t x; std::memcpy(&x, a.bytes.data(), 2); v = is_unsigned ? static_cast<uint16_t>(x) : x; break; }
    case 4: { int32_t x; std::memcpy(&x, a.bytes.data(), 4); v = is_unsigned ? static_cast<uint32_t>(x) : x; break; }
    case 8: std::memcpy(&v, a.bytes.data(), 8); break;
    default: break;
  }
  return v;
}

// Why the launch's reduction buffers cannot get private copies ("" when
// they can): the copy must be the only way the kernel reaches those bytes,
// and element-aligned in its root store.
std::string reduction_conflict(const Launch& L) {
  for (const BufferArg& r : L.buffers) {
    if (!r.summary || r.summary->reduction == ReductionOp::None) continue;
    const std::string who = "reduction buffer (argument " + std::to_string(r.index) + ")";
    if (r.mem->origin % (r.summary->reduction_bits / 8))
      return who + " not aligned to its elements in its parent buffer";
    for (const BufferArg& other : L.buffers)
      if (&other != &r && other.mem->store == r.mem->store)
        return who + " shares memory with argument " + std::to_string(other.index);
  }
  return "";
}

bool chunk_scheduler(std::string_view name) {
  return name == "dynamic" || name == "hguided" || name == "autotune";
}

// choose_split_dim, remembered for the kernel's latest arguments.
SplitChoice split_choice(cl_kernel k, const KernelSummary& ks,
                         const std::vector<std::optional<int64_t>>& scalars, const NDRange& nd,
                         const std::vector<uint64_t>& sizes, unsigned parts) {
  {
    std::lock_guard lock(k->mutex);
    const auto& memo = k->split_memo;
    if (memo && memo->parts == parts && memo->shape.is(&ks, scalars, nd, sizes)) return memo->choice;
  }
  SplitChoice choice = choose_split_dim(ks, scalars, nd, sizes, parts);
  std::lock_guard lock(k->mutex);
  k->split_memo = _cl_kernel::SplitMemo{{&ks, scalars, nd, sizes}, parts, choice};
  return choice;
}

// The launch's arguments: scalars, buffers (with their summaries), images;
// what ties the launch to the queue's device (images, samplers, pipes and
// SVM), null when nothing does.
const char* describe_arguments(Launch& L, const KernelSummary* ks) {
  cl_kernel k = L.kernel;
  const std::vector<ArgValue>& args = L.args;
  L.buffers.reserve(args.size());
  L.scalars.assign(args.size(), std::nullopt);
  L.sizes.assign(args.size(), 0);
  // Images, samplers, pipes and SVM tie the launch to the queue's device.
  const char* device_bound = nullptr;
  for (const auto& [param, bytes] : L.exec_info)
    if (param == CL_KERNEL_EXEC_INFO_SVM_PTRS || param == CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM)
      device_bound = "SVM (exec info)";
  for (unsigned i = 0; i < args.size(); ++i) {
    const ArgSummary* as = ks && i < ks->args.size() ? &ks->args[i] : nullptr;
    if (args[i].kind == ArgValue::Kind::Bytes && args[i].bytes.size() <= 8)
      L.scalars[i] = scalar_value(args[i], as);
    if (args[i].kind == ArgValue::Kind::Sampler) device_bound = "sampler argument";
    if (args[i].kind == ArgValue::Kind::Svm) device_bound = "SVM argument";
    if (args[i].kind == ArgValue::Kind::Mem && args[i].mem && args[i].mem->pipe) device_bound = "pipe argument";
    if (args[i].kind == ArgValue::Kind::Mem && args[i].mem && args[i].mem->image) {
      device_bound = "image argument";
      L.images.push_back({i, args[i].mem, !(i < k->access.size() && k->access[i] == CL_KERNEL_ARG_ACCESS_READ_ONLY)});
      L.sizes[i] = args[i].mem->size;
    }
    if (args[i].kind == ArgValue::Kind::Mem && args[i].mem && args[i].mem->store) {
      BufferArg b{i, args[i].mem};
      // Without a summary: "const T*" arguments and CL_MEM_READ_ONLY buffers
      // are not written (writing them is undefined behaviour).
      if (!as && ((i < k->const_pointee.size() && k->const_pointee[i]) ||
                  (args[i].mem->flags & CL_MEM_READ_ONLY)))
        b.writes = false;
      if (as) {
        b.reads = as->reads || as->atomics;
        b.writes = as->writes || as->atomics;
        b.summary = as;
        std::tie(b.reads_through_index, b.writes_through_index) = through_index(k, *ks, i);
      }
      L.buffers.push_back(b);
      L.sizes[i] = args[i].mem->size;
    }
  }
  return device_bound;
}

// Whether the launch may split at all (L.split), else why it runs whole.
void decide_splittable(Launch& L, const KernelSummary* ks, const char* device_bound, unsigned ndev) {
  Runtime& rt = runtime();
  cl_program p = L.kernel->program;
  const LaunchSpec& spec = L.spec;
  // Global atomics allow a split only on reduction buffers (reduction.h),
  // and only while LIBSPLIT_REDUCTIONS is on.
  const bool reductions = ks && ks->uses_global_atomics && atomics_are_reductions(*ks);
  const bool atomics_ok = ks && (!ks->uses_global_atomics || (reductions && rt.controls.reductions));
  L.split = spec.uniform && ndev >= 2 && !device_bound && !p->lazy_failed &&
            (p->mode == _cl_program::Mode::Plain ||
             (ks && ks->splittable && atomics_ok && !ks->uses_images));
  L.why_whole = !spec.uniform ? "non-uniform work-groups"
                : device_bound ? device_bound
                : p->lazy_failed ? "program did not build on every platform"
                : p->mode == _cl_program::Mode::Preparing ? "partition-ready program in preparation"
                : p->mode == _cl_program::Mode::Whole ? "program not partition-ready"
                : (L.compiled && !ks) ? "kernel missing from summary"
                : (ks && !ks->splittable) ? ks->not_splittable_reason
                : (ks && !atomics_ok) ? (reductions ? "reduction buffers (LIBSPLIT_REDUCTIONS=0)"
                                                    : "global atomics")
                : (ks && ks->uses_images) ? "images" : "";
  if (L.split && ks)
    if (std::string why = reduction_conflict(L); !why.empty()) {
      L.split = false;
      L.why_whole = why;
    }
}

// The split dimension (regions and the split's merge prediction in Compiled
// mode, else the dimension with the most groups) and the groups along it;
// a launch that cannot be cut there runs whole.
void choose_dimension(Launch& L, const KernelSummary* ks, unsigned ndev) {
  cl_kernel k = L.kernel;
  const LaunchSpec& spec = L.spec;
  L.dim = spec.dims - 1;
  // Index buffers are read only by the stages that split or probe (through
  // slice_bytes): a launch the scheduler runs whole pays no scan. The
  // dimension is chosen without them (index-dependent regions count whole).
  if (L.split && ks) L.indexes = make_index_reader(L);
  if (L.split && ks) {
    SplitChoice choice = split_choice(k, *ks, L.scalars, L.nd, L.sizes, ndev);
    // Written bytes found through an index depend on the chunk boundaries:
    // only a static split (actual chunks checked) may skip the merge.
    L.merge_predicted = choice.needs_merge || writes_through_index(L);
    if (!choice.splittable) {
      L.split = false;
      L.why_whole = choice.reason;
    }
    L.dim = choice.dim;
  } else if (L.split) {
    // No regions: the dimension with the most groups (ties: the outermost).
    for (unsigned d = 0; d < spec.dims; ++d)
      if (L.nd.groups(d) >= L.nd.groups(L.dim) && L.nd.groups(d) > 1) L.dim = d;
  }
  L.total_groups = L.nd.groups(L.dim);
  if (L.split && L.total_groups < 2) {
    L.split = false;
    L.why_whole = "one work-group";
  }
  if (L.split)
    for (unsigned d = 0; d < ndev && L.split; ++d)
      if (!device_takes_local_size(L.spec, d)) {
        L.split = false;
        L.why_whole = "local size above the limits of device " + std::to_string(d);
      }
}

// Fills everything but the plan: arguments, regions, split dimension.
void describe(Launch& L) {
  Runtime& rt = runtime();
  cl_kernel k = L.kernel;
  cl_program p = k->program;
  const LaunchSpec& spec = L.spec;
  L.compiled = p->mode == _cl_program::Mode::Compiled;
  const KernelSummary* ks = L.compiled ? p->summary->find(k->name) : nullptr;
  L.summary = ks;
  const unsigned ndev = static_cast<unsigned>(rt.devices.size());
  L.nd.dims = spec.dims;
  for (unsigned d = 0; d < 3; ++d) {
    L.nd.global[d] = spec.global[d];
    L.nd.local[d] = spec.local[d];
    L.nd.offset[d] = spec.offset[d];
  }
  const char* device_bound = describe_arguments(L, ks);
  decide_splittable(L, ks, device_bound, ndev);
  choose_dimension(L, ks, ndev);
  L.key.kernel = k->name;
  L.key.dims = spec.dims;
  for (unsigned d = 0; d < 3; ++d) L.key.global[d] = spec.global[d], L.key.local[d] = spec.local[d];
  L.key.split_dim = L.dim;
  L.key.home = L.queue->home;
  uint64_t role = 14695981039346656037ull;  // FNV-1a over the buffers' handles
  for (const BufferArg& b : L.buffers) role = (role ^ reinterpret_cast<uintptr_t>(b.mem)) * 1099511628211ull;
  L.key.role = role;
}

// Tells the scheduler which devices new splits may use (Scheduler::set_ready):
// the app's, then each other one once its context is open, a GPU once this
// launch's program is built there too (asking starts that build in the
// background; a GPU being opened is asked already, so that its build starts
// the moment it opens): a split planned over a device still building ran whole,
// and on 4 H100 the reset to whole lost gemm's running split. Once told, a
// device stays ready (another program not built there yet runs its launch
// whole once). Nothing to do once every device is open and told.
void tell_scheduler_ready(Runtime& rt, cl_kernel k) {
  if (rt.all_ready_told.load(std::memory_order_relaxed)) return;
  if (!rt.scheduler->plans_by_readiness()) {
    rt.all_ready_told = true;
    return;
  }
  const bool opening_ended = rt.others_open.load();  // read first: no slot opens after
  const unsigned n = unsigned(rt.devices.size());
  std::vector<bool>& ready = rt.ready_told;
  bool changed = ready.size() != n;
  ready.resize(n, false);
  bool all = true;
  for (unsigned d = 0; d < n; ++d) {
    if (!ready[d] && rt.device_open(d) && (!rt.devices[d].is_gpu || devices_ready(k, {d})))
      ready[d] = changed = true;
    else if (!ready[d] && rt.devices[d].is_gpu && !rt.device_open(d))
      build_where_opening(k, d);
    all = all && ready[d];
  }
  if (changed) rt.scheduler->set_ready(ready);
  rt.want_devices(rt.scheduler->devices_wanted());
  if (opening_ended && all) rt.all_ready_told = true;
}

// The host times of a launch's stages and the drivers' part of them, for
// LIBSPLIT_LOG=3 only (a clock read costs ~50 ns, and a launch is a few us).
class StageClock {
 public:
  enum Stage { start, reports, prepare, describe, plan, run, count };
  explicit StageClock(bool on) : on_(on) {
    driver_enqueue_ns() = 0;
    mark(start);
  }
  void mark(Stage s) {
    if (on_) at_[s] = now_ns(), driver_[s] = driver_call_ns(), log_[s] = log_write_ns();
  }
  void log(uint64_t id, const char* how) const {
    if (!on_) return;
    auto us = [this](Stage s) { return std::to_string((at_[s] - at_[s - 1]) / 1000); };
    auto driver_us = [this](Stage from, Stage to) { return std::to_string((driver_[to] - driver_[from]) / 1000); };
    log_line(3, "host time of launch " + std::to_string(id) + " (" + how + "): reports " + us(reports) +
                    " us (earlier launches' times to the scheduler, their log lines included; driver calls " +
                    driver_us(start, reports) + " us), prepare " + us(prepare) + " us, describe " + us(describe) +
                    " us, plan " + us(plan) + " us, run " + us(run) + " us (driver calls " + driver_us(describe, run) +
                    " us, of which the sub-kernel enqueues " + std::to_string(driver_enqueue_ns() / 1000) +
                    " us); log lines written " + std::to_string((log_[run] - log_[start]) / 1000) + " us");
  }

 private:
  bool on_;
  cl_ulong at_[count] = {}, driver_[count] = {}, log_[count] = {};
};

}  // namespace

cl_int execute_launch(cl_command_queue q, cl_kernel k, const LaunchSpec& spec,
                      std::vector<ArgValue>&& args) {
  Runtime& rt = runtime();
  StageClock clock(rt.controls.log >= 3);
  if (!program_launchable(k->program, q->home)) return CL_INVALID_PROGRAM_EXECUTABLE;
  deliver_reports();
  clock.mark(StageClock::reports);
  Launch L;
  L.queue = q;
  L.kernel = k;
  L.spec = spec;
  L.args = std::move(args);
  {
    std::lock_guard lock(k->mutex);
    L.exec_info = k->exec_info;
  }
  L.id = ++rt.launches;
  rt.last_launch_ns = now_ns();
  if (!rt.first_launch_ns) rt.first_launch_ns = rt.last_launch_ns;
  clock.mark(StageClock::prepare);
  describe(L);
  clock.mark(StageClock::describe);
  if (!L.split) {
    clock.mark(StageClock::plan);
    cl_int err = run_whole(L, q->home, nullptr);
    clock.mark(StageClock::run);
    clock.log(L.id, "whole");
    return err;
  }

  tell_scheduler_ready(rt, k);
  std::unique_ptr<sched::LaunchPlan> plan = rt.scheduler->plan(L.key, L.total_groups);
  // Probes read the launch's inputs: copy them before the real work runs.
  std::shared_ptr<StagedProbes> probes;
  if (std::vector<sched::Chunk> wanted = plan->probes(); !wanted.empty())
    probes = stage_probes(L, wanted, plan->probe_staging_room());
  clock.mark(StageClock::plan);
  cl_int err;
  if (std::optional<unsigned> whole = plan->whole_device()) {
    L.why_whole = "scheduler chose device " + std::to_string(*whole);
    if (std::string why = plan->why_whole(); !why.empty()) L.why_whole += ": " + why;
    cl_int kerr = CL_SUCCESS;
    if (*whole != q->home && !devices_ready(k, {*whole})) {
      // Still opening, or its program still building (in the background).
      L.why_whole = "device " + std::to_string(*whole) + " not ready yet";
      err = run_whole(L, q->home, nullptr);
    } else if (cl_kernel dk = *whole == q->home ? nullptr : device_kernel(k, *whole, &kerr);
               dk && !kernel_takes_local_size(L, dk, *whole)) {
      L.why_whole = "the kernel on device " + std::to_string(*whole) + " cannot take the local size";
      err = run_whole(L, q->home, nullptr);
    } else {
      err = run_whole(L, *whole, plan.get());
    }
  } else if (L.regions_known() && !L.merge_predicted && !rt.controls.merge_all &&
             chunk_scheduler(rt.scheduler->name())) {
    std::vector<unsigned> all(rt.devices.size());
    for (unsigned d = 0; d < all.size(); ++d) all[d] = d;
    if (devices_ready(k, all)) {
      err = run_dynamic(L, *plan);
    } else {
      L.why_whole = "a device of the split not ready yet (opening, or its program building)";
      err = run_whole(L, q->home, nullptr);
    }
  } else {
    err = run_split(L, *plan);
  }
  if (probes) start_probes(L, std::move(probes));
  clock.mark(StageClock::run);
  clock.log(L.id, plan->whole_device() ? "whole by plan" : "split");
  return err;
}

bool Launch::regions_known() const {
  if (!summary) return false;
  for (const BufferArg& b : buffers)
    if (!b.summary || b.summary->atomics || (b.reads && !b.summary->read_region.known) ||
        (b.writes && !b.summary->write_region.known))
      return false;
  return true;
}

std::string ms(double s) {
  char b[32];
  snprintf(b, sizeof b, "%.3f", s * 1e3);
  return b;
}

cl_int set_device_args(cl_kernel dk, const std::vector<ArgValue>& args, unsigned d,
                       const std::map<BufferStore*, cl_mem>* scratch) {
  cl_int err = CL_SUCCESS;
  for (unsigned i = 0; i < args.size(); ++i) {
    const ArgValue& a = args[i];
    switch (a.kind) {
      case ArgValue::Kind::Mem: {
        cl_mem m = nullptr;
        if (a.mem && scratch) {
          auto it = scratch->find(a.mem->store.get());
          m = it != scratch->end() ? it->second : nullptr;
          if (!m) return CL_INVALID_MEM_OBJECT;
        } else if (a.mem && a.mem->image) {
          m = device_image(*a.mem->image, d, &err);
          if (!m) return err;
        } else if (a.mem && a.mem->pipe) {
          m = a.mem->pipe;
        } else if (a.mem) {
          m = device_arg(a.mem, d, &err);
          if (!m) return err;
        }
        err = set_kernel_arg_cached(dk, i, sizeof(cl_mem), &m);
        break;
      }
      case ArgValue::Kind::Sampler: {
        cl_sampler s = device_sampler(a.sampler, d, &err);
        if (!s) return err;
        err = set_kernel_arg_cached(dk, i, sizeof s, &s);
        break;
      }
      case ArgValue::Kind::Svm: err = set_kernel_arg_svm_cached(dk, i, a.svm); break;
      case ArgValue::Kind::Local: err = set_kernel_arg_cached(dk, i, a.local_size, nullptr); break;
      case ArgValue::Kind::Bytes: err = set_kernel_arg_cached(dk, i, a.bytes.size(), a.bytes.data()); break;
      case ArgValue::Kind::Unset: err = CL_INVALID_KERNEL_ARGS; break;
    }
    if (err != CL_SUCCESS) return err;
  }
  return CL_SUCCESS;
}

cl_int launch_chunk(cl_command_queue dq, cl_kernel dk, const Launch& L, const sched::Chunk& c,
                    cl_event* event, bool original) {
  const LaunchSpec& spec = L.spec;
  const unsigned dim = L.dim;
  size_t off[3], glob[3], loc[3];
  for (unsigned i = 0; i < spec.dims; ++i) off[i] = spec.offset[i], glob[i] = spec.global[i], loc[i] = spec.local[i];
  if (spec.uniform) {
    off[dim] = spec.offset[dim] + c.first_group * spec.local[dim];
    glob[dim] = c.group_count * spec.local[dim];
  }
  if (L.compiled && !original) {
    cl_ulong4 ctx;
    ctx.s[0] = dim;
    ctx.s[1] = c.first_group;
    // Non-uniform launches (run whole) count the partial last group.
    ctx.s[2] = spec.uniform ? L.total_groups
                            : (spec.global[dim] + spec.local[dim] - 1) / spec.local[dim];
    ctx.s[3] = spec.offset[dim];
    if (cl_int err = set_kernel_arg_cached(dk, static_cast<cl_uint>(L.args.size()), sizeof ctx, &ctx))
      return err;
  }
  // The app's own kernel over the whole range, with no local size given:
  // the driver chooses it, as for the app (PoCL took 4096 where libsplit's
  // choice is at most 64).
  const bool drivers_choice = original && spec.local_chosen && c.first_group == 0 &&
                              c.group_count == L.total_groups;
  const bool timed = runtime().controls.log >= 3;
  const cl_ulong start = timed ? now_ns() : 0;
  const cl_int err = real().clEnqueueNDRangeKernel(dq, dk, spec.dims, off, glob, drivers_choice ? nullptr : loc, 0,
                                                   nullptr, event);
  if (timed) driver_enqueue_ns() += now_ns() - start;
  return err;
}

cl_ulong& driver_enqueue_ns() {
  thread_local cl_ulong spent = 0;
  return spent;
}

SubKernelRow trace_row(uint64_t launch, const std::string& kernel, unsigned split_dim, uint64_t total_groups,
                       unsigned device, const sched::Chunk& chunk, double kernel_s, double transfer_s,
                       double predicted_s) {
  SubKernelRow row;
  row.launch = launch;
  row.kernel = kernel;
  row.device = device;
  row.split_dim = split_dim;
  row.first_group = chunk.first_group;
  row.groups = chunk.group_count;
  row.total_groups = total_groups;
  row.ms_kernel = kernel_s * 1e3;
  row.ms_transfer = transfer_s * 1e3;
  row.granularity = static_cast<double>(chunk.group_count) / static_cast<double>(total_groups);
  row.predicted_ms = predicted_s * 1e3;
  return row;
}

double injected_slowdown(unsigned device, uint64_t launch, const std::string& kernel) {
  // Comma list of D@L*F[:kernel] (the factors of every entry that matches
  // multiply).
  struct Slowdown {
    unsigned device = 0;
    uint64_t from = 0;
    double factor = 1;
    std::string kernel;  // empty: every kernel
  };
  static const std::vector<Slowdown> parsed = [] {
    std::vector<Slowdown> out;
    const std::string& text = runtime().controls.inject_slowdown;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
      unsigned d = 0;
      unsigned long long from = 0;
      double f = 1;
      int used = 0;
      if (sscanf(item.c_str(), "%u@%llu*%lf%n", &d, &from, &f, &used) == 3 && f >= 1 &&
          (size_t(used) == item.size() || (item[size_t(used)] == ':' && size_t(used) + 1 < item.size())))
        out.push_back({d, from, f, size_t(used) < item.size() ? item.substr(size_t(used) + 1) : ""});
      else
        log_line(0, "LIBSPLIT_INJECT_SLOWDOWN entry '" + item + "' ignored (expected D@L*F or D@L*F:kernel, F >= 1)");
    }
    return out;
  }();
  double factor = 1;
  for (const Slowdown& s : parsed)
    if (device == s.device && launch >= s.from && (s.kernel.empty() || s.kernel == kernel)) factor *= s.factor;
  return factor;
}

double apply_slowdown(unsigned device, uint64_t launch, const std::string& kernel, double seconds) {
  const double factor = injected_slowdown(device, launch, kernel);
  if (factor == 1.0) return seconds;
  std::this_thread::sleep_for(std::chrono::duration<double>((factor - 1) * seconds));
  return factor * seconds;
}

double event_seconds(cl_event e, cl_ulong* start, cl_ulong* end) {
  cl_ulong s = 0, t = 0;
  real().clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof s, &s, nullptr);
  real().clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr);
  if (start) *start = s;
  if (end) *end = t;
  return t > s ? (t - s) * 1e-9 : 0;
}

bool device_takes_local_size(const LaunchSpec& spec, unsigned d) {
  if (spec.local_chosen) return true;
  const Device& dev = runtime().devices[d];
  for (unsigned i = 0; i < spec.dims; ++i)
    if (spec.local[i] > dev.max_work_item_sizes[i]) return false;
  return spec.items_per_group() <= dev.max_work_group_size;
}

bool kernel_takes_local_size(const Launch& L, cl_kernel dk, unsigned d) {
  if (L.spec.local_chosen) return true;
  size_t max = 0;
  {
    std::lock_guard lock(L.kernel->mutex);
    auto& cache = L.kernel->device_wg_max;
    if (auto it = cache.find(dk); it != cache.end()) max = it->second;
  }
  if (!max) {
    if (real().clGetKernelWorkGroupInfo(dk, runtime().devices[d].id, CL_KERNEL_WORK_GROUP_SIZE, sizeof max,
                                        &max, nullptr) != CL_SUCCESS || !max)
      max = SIZE_MAX;  // unknown: the device limit decides
    std::lock_guard lock(L.kernel->mutex);
    L.kernel->device_wg_max[dk] = max;
  }
  return L.spec.items_per_group() <= max;
}

}  // namespace libsplit
