// clEnqueueNDRangeKernel: validation at enqueue; at execution the launch is
// cut into chunks of whole work-groups along one dimension (the scheduler
// says how many per device), each device receives the bytes its chunks read,
// runs its sub-launches, and the written bytes are marked valid on the
// writing device; buffers whose written bytes are unknown or overlap between
// devices are diff-merged against their pre-launch contents.
#include "api.h"
#include "buffer_data.h"
#include "program_prep.h"
#include "queue.h"
#include "real_api.h"
#include "runtime.h"
#include "trace.h"

#include "libsplit/split_plan.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <chrono>
#include <thread>

namespace libsplit {

namespace {

struct LaunchSpec {
  unsigned dims = 1;
  uint64_t offset[3] = {0, 0, 0}, global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  bool uniform = true;  // global % local == 0 in every dimension
};

struct ChunkRun {
  sched::Chunk chunk;
  cl_event event = nullptr;
  double seconds = 0;
  cl_ulong start = 0, end = 0;
};

// One app buffer argument of the launch.
struct BufferArg {
  unsigned index;
  cl_mem mem;
  bool reads = true, writes = true;
  const ArgSummary* summary = nullptr;
};

// What a launch does to one root store.
struct StoreUse {
  BufferStore* store = nullptr;
  Range hull{~uint64_t(0), 0};
  bool written = false, merge = false;
  std::vector<IntervalSet> needed, wrote;  // per device
  std::vector<bool> wrote_unknown;         // per device: whole hull written
};

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

std::string ms(double s) {
  char b[32];
  snprintf(b, sizeof b, "%.3f", s * 1e3);
  return b;
}


cl_int set_device_args(cl_kernel dk, const std::vector<ArgValue>& args, unsigned d) {
  cl_int err = CL_SUCCESS;
  for (unsigned i = 0; i < args.size(); ++i) {
    const ArgValue& a = args[i];
    switch (a.kind) {
      case ArgValue::Kind::Mem: {
        cl_mem m = a.mem ? device_arg(a.mem, d, &err) : nullptr;
        if (a.mem && !m) return err;
        err = real().clSetKernelArg(dk, i, sizeof(cl_mem), &m);
        break;
      }
      case ArgValue::Kind::Local: err = real().clSetKernelArg(dk, i, a.local_size, nullptr); break;
      case ArgValue::Kind::Bytes: err = real().clSetKernelArg(dk, i, a.bytes.size(), a.bytes.data()); break;
      case ArgValue::Kind::Unset: err = CL_INVALID_KERNEL_ARGS; break;
    }
    if (err != CL_SUCCESS) return err;
  }
  return CL_SUCCESS;
}

cl_int launch_chunk(cl_command_queue dq, cl_kernel dk, const LaunchSpec& spec, unsigned dim,
                    const sched::Chunk& c, bool with_ctx, uint64_t total_groups, size_t nargs,
                    cl_event* event) {
  size_t off[3], glob[3], loc[3];
  for (unsigned i = 0; i < spec.dims; ++i) off[i] = spec.offset[i], glob[i] = spec.global[i], loc[i] = spec.local[i];
  if (spec.uniform) {
    off[dim] = spec.offset[dim] + c.first_group * spec.local[dim];
    glob[dim] = c.group_count * spec.local[dim];
  }
  if (with_ctx) {
    cl_ulong4 ctx;
    ctx.s[0] = dim;
    ctx.s[1] = c.first_group;
    // Non-uniform launches (run whole) count the partial last group.
    ctx.s[2] = spec.uniform ? total_groups
                            : (spec.global[dim] + spec.local[dim] - 1) / spec.local[dim];
    ctx.s[3] = spec.offset[dim];
    if (cl_int err = real().clSetKernelArg(dk, static_cast<cl_uint>(nargs), sizeof ctx, &ctx)) return err;
  }
  return real().clEnqueueNDRangeKernel(dq, dk, spec.dims, off, glob, loc, 0, nullptr, event);
}

// One LIBSPLIT_TRACE row: a chunk of a launch and what it cost (seconds in,
// milliseconds out, as the CSV documents).
SubKernelRow trace_row(uint64_t launch, const std::string& kernel, unsigned device,
                       unsigned split_dim, const sched::Chunk& chunk, uint64_t total_groups,
                       double kernel_s, double transfer_s, double predicted_s) {
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

bool chunk_scheduler(std::string_view name) {
  return name == "dynamic" || name == "hguided" || name == "autotune";
}

// Chunk schedulers (dynamic, hguided, autotune) hand out packages as devices
// become idle: one host thread per device asks for its next chunk, brings
// the chunk's regions, runs it, and records what it wrote. Only used when
// every written region is known and the slices' writes do not overlap, so
// no merge can be needed; the written bytes are marked at the end.
cl_int execute_dynamic(Runtime& rt, cl_kernel k, const LaunchSpec& spec,
                       const std::vector<ArgValue>& args, const NDRange& nd, unsigned dim,
                       uint64_t total_groups, const std::vector<std::optional<int64_t>>& scalars,
                       const std::vector<BufferArg>& buffers, sched::LaunchPlan& plan,
                       const sched::LaunchKey& key, uint64_t launch_id) {
  const unsigned ndev = static_cast<unsigned>(rt.devices.size());
  struct DeviceWork {
    cl_kernel kernel = nullptr;
    std::vector<ChunkRun> runs;
    std::vector<double> transfer;  // per run
    TransferStats moved;
    std::map<BufferStore*, IntervalSet> wrote;
    std::map<BufferStore*, bool> wrote_unknown;
  };
  std::vector<DeviceWork> work(ndev);
  for (unsigned d = 0; d < ndev; ++d) {
    cl_int err = CL_SUCCESS;
    work[d].kernel = device_kernel(k, d, &err);
    if (!work[d].kernel) return err;
    if ((err = set_device_args(work[d].kernel, args, d))) return err;
  }
  // One host thread drives every device (PoCL is not safe with kernels
  // enqueued from several threads at once): hand a chunk to each idle
  // device, then poll for the first to finish.
  struct Busy {
    ChunkRun run;
    double transfer = 0;
    cl_ulong host_start = 0;
  };
  std::vector<std::optional<Busy>> busy(ndev);
  std::vector<bool> done(ndev, false);
  auto start_chunk = [&](unsigned d, const sched::Chunk& c) -> cl_int {
    DeviceWork& w = work[d];
    cl_command_queue dq = rt.devices[d].queue;
    Slice slice{dim, c.first_group, c.group_count};
    EvalEnv env = slice_env(nd, slice, scalars);
    std::map<BufferStore*, IntervalSet> needed;
    for (const BufferArg& b : buffers) {
      BufferStore* st = b.mem->store.get();
      Range whole = root_range(b.mem, 0, b.mem->size);
      auto add = [&](const std::optional<std::vector<ByteRange>>& rs, IntervalSet& into) {
        if (!rs) return false;
        for (auto& br : *rs) into.add({whole.begin + br.begin, whole.begin + br.end});
        return true;
      };
      if (b.reads && !add(evaluate_region(b.summary->read_region, env, b.mem->size), needed[st]))
        needed[st].add(whole);
      if (b.writes) {
        IntervalSet written;
        if (add(evaluate_region(b.summary->write_region, env, b.mem->size), written)) {
          for (const Range& r : written.ranges()) needed[st].add(r), w.wrote[st].add(r);
        } else {
          needed[st].add(whole);
          w.wrote_unknown[st] = true;
        }
      }
    }
    cl_ulong t0 = now_ns();
    for (auto& [st, set] : needed)
      for (const Range& r : set.ranges()) {
        if (cl_int err = stage_for_device(*st, d, r, &w.moved)) return err;
        if (cl_int err = ensure_device(*st, d, r, &w.moved)) return err;
      }
    Busy b;
    b.run.chunk = c;
    b.host_start = now_ns();
    b.transfer = (b.host_start - t0) * 1e-9;
    if (cl_int err = launch_chunk(dq, w.kernel, spec, dim, c, true, total_groups, args.size(), &b.run.event))
      return err;
    real().clFlush(dq);
    busy[d] = b;
    return CL_SUCCESS;
  };
  cl_int failure = CL_SUCCESS;
  for (;;) {
    for (unsigned d = 0; d < ndev && !failure; ++d) {
      while (!busy[d] && !done[d]) {
        auto c = plan.next(d);
        if (!c) {
          done[d] = true;
        } else if (c->group_count) {
          c->device = d;
          failure = start_chunk(d, *c);
          break;
        }
      }
    }
    bool any_busy = false;
    for (auto& b : busy) any_busy |= b.has_value();
    if (!any_busy) break;
    // Wait for the first busy device to finish (short polls).
    for (bool finished = false; !finished;) {
      for (unsigned d = 0; d < ndev; ++d) {
        if (!busy[d]) continue;
        cl_int st = CL_QUEUED;
        real().clGetEventInfo(busy[d]->run.event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
        if (st > CL_COMPLETE) continue;
        finished = true;
        ChunkRun run = busy[d]->run;
        if (st < 0 && !failure) failure = st;
        real().clGetEventProfilingInfo(run.event, CL_PROFILING_COMMAND_START, sizeof run.start, &run.start, nullptr);
        real().clGetEventProfilingInfo(run.event, CL_PROFILING_COMMAND_END, sizeof run.end, &run.end, nullptr);
        real().clReleaseEvent(run.event);
        run.event = nullptr;
        run.seconds = run.end > run.start ? (run.end - run.start) * 1e-9 : 0;
        cl_ulong t2 = now_ns();
        rt.tracer->span(k->name, "kernel", d, t2 - (run.end - run.start), t2);
        work[d].runs.push_back(run);
        work[d].transfer.push_back(busy[d]->transfer);
        busy[d].reset();
        if (failure) done[d] = true;
      }
      if (!finished) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    if (failure) {
      for (unsigned d = 0; d < ndev; ++d) done[d] = true;
    }
  }
  if (failure) return failure;

  // Written bytes: a device whose region could not be evaluated owns its
  // whole buffer first, then the known ranges of the others take theirs.
  for (unsigned d = 0; d < ndev; ++d)
    for (auto& [st, unknown] : work[d].wrote_unknown) {
      if (!unknown) continue;
      uint64_t lo = ~uint64_t(0), hi = 0;
      for (const BufferArg& b : buffers)
        if (b.mem->store.get() == st) {
          Range whole = root_range(b.mem, 0, b.mem->size);
          lo = std::min(lo, whole.begin), hi = std::max(hi, whole.end);
        }
      wrote_device(*st, d, {lo, hi});
    }
  for (unsigned d = 0; d < ndev; ++d)
    for (auto& [st, set] : work[d].wrote)
      for (const Range& r : set.ranges()) wrote_device(*st, d, r);

  std::vector<sched::ChunkTiming> timings;
  std::ostringstream line;
  unsigned used = 0;
  for (unsigned d = 0; d < ndev; ++d) used += !work[d].runs.empty();
  line << "launch " << launch_id << " " << k->name << " dim " << dim << " groups " << total_groups
       << " split over " << used << " devices (dynamic)";
  for (unsigned d = 0; d < ndev; ++d) {
    DeviceWork& w = work[d];
    if (w.runs.empty()) continue;
    double kern = 0, xfer = 0;
    uint64_t groups = 0;
    for (size_t i = 0; i < w.runs.size(); ++i) {
      ChunkRun& r = w.runs[i];
      kern += r.seconds, xfer += w.transfer[i], groups += r.chunk.group_count;
      timings.push_back({r.chunk, r.seconds, w.transfer[i]});
      rt.tracer->row(trace_row(launch_id, k->name, d, dim, r.chunk, total_groups, r.seconds,
                               w.transfer[i], plan.predicted_seconds(d)));
    }
    line << " | dev" << d << " " << groups << " groups in " << w.runs.size() << " chunks " << ms(kern)
         << " ms +" << ms(xfer) << " ms xfer " << w.moved.bytes_to_device << " B in";
  }
  rt.scheduler->report(key, timings);
  log_line(1, line.str());
  return CL_SUCCESS;
}

cl_int execute_launch(cl_command_queue q, cl_kernel k, const LaunchSpec& spec,
                      const std::vector<ArgValue>& args) {
  Runtime& rt = runtime();
  cl_program p = k->program;
  prepare_program(p);
  if (p->mode == _cl_program::Mode::Failed) return CL_INVALID_PROGRAM_EXECUTABLE;
  const bool compiled = p->mode == _cl_program::Mode::Compiled;
  const KernelSummary* ks = compiled ? p->summary->find(k->name) : nullptr;
  const unsigned ndev = static_cast<unsigned>(rt.devices.size());
  const uint64_t launch_id = ++rt.launches;

  NDRange nd;
  nd.dims = spec.dims;
  for (unsigned d = 0; d < 3; ++d) {
    nd.global[d] = spec.global[d];
    nd.local[d] = spec.local[d];
    nd.offset[d] = spec.offset[d];
  }
  // Scalar values and buffer sizes by argument index (for the region evaluator).
  std::vector<std::optional<int64_t>> scalars(args.size());
  std::vector<uint64_t> sizes(args.size(), 0);
  std::vector<BufferArg> buffers;
  for (unsigned i = 0; i < args.size(); ++i) {
    const ArgSummary* as = ks && i < ks->args.size() ? &ks->args[i] : nullptr;
    if (args[i].kind == ArgValue::Kind::Bytes && args[i].bytes.size() <= 8)
      scalars[i] = scalar_value(args[i], as);
    if (args[i].kind == ArgValue::Kind::Mem && args[i].mem) {
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
      }
      buffers.push_back(b);
      sizes[i] = args[i].mem->size;
    }
  }

  // Split decision.
  bool split = spec.uniform && ndev >= 2 &&
               (p->mode == _cl_program::Mode::Plain ||
                (ks && ks->splittable && !ks->uses_global_atomics && !ks->uses_images));
  std::string why_whole = !spec.uniform ? "non-uniform work-groups"
                          : p->mode == _cl_program::Mode::Whole ? "program not partition-ready"
                          : (compiled && !ks) ? "kernel missing from summary"
                          : (ks && !ks->splittable) ? ks->not_splittable_reason
                          : (ks && ks->uses_global_atomics) ? "global atomics"
                          : (ks && ks->uses_images) ? "images" : "";
  unsigned dim = spec.dims - 1;
  bool force_merge = rt.controls.merge_all || !compiled;
  bool merge_predicted = true;
  if (split && ks) {
    SplitChoice choice = choose_split_dim(*ks, scalars, nd, sizes, ndev);
    merge_predicted = choice.needs_merge;
    if (!choice.splittable) {
      split = false;
      why_whole = choice.reason;
    }
    dim = choice.dim;
  } else if (split) {
    // No regions: the dimension with the most groups (ties: the outermost).
    for (unsigned d = 0; d < spec.dims; ++d)
      if (nd.groups(d) >= nd.groups(dim) && nd.groups(d) > 1) dim = d;
  }
  const uint64_t total_groups = nd.groups(dim);
  if (split && total_groups < 2) {
    split = false;
    why_whole = "one work-group";
  }

  // The chunks, per device.
  sched::LaunchKey key;
  key.kernel = k->name;
  key.dims = spec.dims;
  for (unsigned d = 0; d < 3; ++d) key.global[d] = spec.global[d], key.local[d] = spec.local[d];
  key.split_dim = dim;
  std::vector<std::vector<ChunkRun>> runs(ndev);
  std::unique_ptr<sched::LaunchPlan> plan;
  if (split) {
    plan = rt.scheduler->plan(key, total_groups);
    bool regions_known = ks != nullptr;
    for (const BufferArg& b : buffers)
      regions_known &= b.summary && (!b.writes || b.summary->write_region.known) && !b.summary->atomics;
    if (regions_known && !merge_predicted && !rt.controls.merge_all && !plan->whole_device() &&
        chunk_scheduler(rt.scheduler->name()))
      return execute_dynamic(rt, k, spec, args, nd, dim, total_groups, scalars, buffers, *plan, key,
                             launch_id);
    // Drain the plan up front (round-robin over devices) so the write
    // overlap of the actual chunks is known before anything runs.
    std::vector<bool> done(ndev, false);
    for (unsigned left = ndev; left;) {
      for (unsigned d = 0; d < ndev; ++d) {
        if (done[d]) continue;
        auto c = plan->next(d);
        if (!c) {
          done[d] = true;
          --left;
        } else if (c->group_count) {
          c->device = d;
          runs[d].push_back({*c});
        }
      }
    }
    if (auto whole = plan->whole_device()) why_whole = "scheduler chose device " + std::to_string(*whole);
  } else {
    runs[q->home].push_back({sched::Chunk{q->home, 0, total_groups}});
  }
  std::vector<unsigned> used;
  for (unsigned d = 0; d < ndev; ++d)
    if (!runs[d].empty()) used.push_back(d);
  if (used.empty()) return CL_SUCCESS;

  // What each device needs and writes, per root store.
  std::map<BufferStore*, StoreUse> stores;
  for (const BufferArg& b : buffers) {
    StoreUse& u = stores[b.mem->store.get()];
    u.store = b.mem->store.get();
    u.needed.resize(ndev);
    u.wrote.resize(ndev);
    u.wrote_unknown.resize(ndev, false);
    Range whole = root_range(b.mem, 0, b.mem->size);
    u.hull = {std::min(u.hull.begin, whole.begin), std::max(u.hull.end, whole.end)};
    u.written |= b.writes;
    for (unsigned d : used) {
      for (const ChunkRun& r : runs[d]) {
        Slice s{dim, r.chunk.first_group, r.chunk.group_count};
        std::optional<EvalEnv> env;
        if (b.summary) env = slice_env(nd, s, scalars);
        auto region_of = [&](const AccessRegion& reg) -> std::optional<std::vector<ByteRange>> {
          if (!b.summary || rt.controls.merge_all || !split) return std::nullopt;
          return evaluate_region(reg, *env, b.mem->size);
        };
        std::optional<std::vector<ByteRange>> reads, writes;
        if (b.reads) {
          reads = region_of(b.summary ? b.summary->read_region : AccessRegion{});
          if (!reads) u.needed[d].add(whole);
          else for (auto& br : *reads) u.needed[d].add({whole.begin + br.begin, whole.begin + br.end});
        }
        if (b.writes) {
          writes = region_of(b.summary ? b.summary->write_region : AccessRegion{});
          // Bytes in the written region the kernel may leave alone must
          // already hold the current contents on the device.
          if (!writes) {
            u.needed[d].add(whole);
            u.wrote_unknown[d] = true;
          } else {
            for (auto& br : *writes) {
              Range r{whole.begin + br.begin, whole.begin + br.end};
              u.needed[d].add(r);
              u.wrote[d].add(r);
            }
          }
        }
      }
    }
  }
  // Merge when more than one device writes a store and the written bytes
  // are unknown or overlap between devices.
  std::vector<std::string> merged_names;
  for (auto& [s, u] : stores) {
    if (!u.written || used.size() < 2) continue;
    bool merge = force_merge;
    for (unsigned i = 0; i < used.size() && !merge; ++i) {
      if (u.wrote_unknown[used[i]]) merge = true;
      for (unsigned j = i + 1; j < used.size() && !merge; ++j)
        for (const Range& r : u.wrote[used[i]].ranges())
          if (!u.wrote[used[j]].present(r).empty()) merge = true;
    }
    u.merge = merge;
  }

  // Phase 1: transfers.
  const cl_ulong t_begin = now_ns();
  std::map<BufferStore*, std::vector<uint8_t>> snapshots;
  for (auto& [s, u] : stores) {
    if (!u.merge) continue;
    if (cl_int err = ensure_host(*s, u.hull)) return err;
    snapshots[s].assign(s->shadow + u.hull.begin, s->shadow + u.hull.end);
    for (unsigned d : used) u.needed[d].add(u.hull);
  }
  // Bytes a device lacks are first gathered on the host (reading from the
  // other devices while they are idle), so that once kernels run only
  // host-to-device writes remain.
  std::vector<double> transfer_seconds(ndev, 0);
  std::vector<TransferStats> moved(ndev);
  {
    cl_ulong t0 = now_ns();
    for (unsigned d : used)
      for (auto& [s, u] : stores)
        for (const Range& r : u.needed[d].ranges())
          if (cl_int err = stage_for_device(*s, d, r, &moved[d])) return err;
    cl_ulong t1 = now_ns();
    if (t1 - t0 > 20000) rt.tracer->span("gather " + k->name, "transfer", 0, t0, t1);
  }
  std::vector<cl_event> write_begin(ndev, nullptr), write_end(ndev, nullptr);

  // Phase 2: per device, its writes then its sub-launches; devices overlap.
  for (unsigned d : used) {
    cl_int err = CL_SUCCESS;
    cl_command_queue dq = rt.devices[d].queue;
    real().clEnqueueMarkerWithWaitList(dq, 0, nullptr, &write_begin[d]);
    for (auto& [s, u] : stores)
      for (const Range& r : u.needed[d].ranges())
        if ((err = ensure_device(*s, d, r, &moved[d]))) return err;
    real().clEnqueueMarkerWithWaitList(dq, 0, nullptr, &write_end[d]);
    cl_kernel dk = device_kernel(k, d, &err);
    if (!dk) return err;
    if ((err = set_device_args(dk, args, d))) return err;
    for (ChunkRun& r : runs[d])
      if ((err = launch_chunk(dq, dk, spec, dim, r.chunk, compiled, total_groups, args.size(), &r.event)))
        return err;
    real().clFlush(rt.devices[d].queue);
  }
  cl_int status = CL_SUCCESS;
  std::vector<sched::ChunkTiming> timings;
  for (unsigned d : used) {
    real().clFinish(rt.devices[d].queue);
    cl_ulong host_end = now_ns();
    cl_ulong last_end = 0, w0 = 0, w1 = 0;
    real().clGetEventProfilingInfo(write_begin[d], CL_PROFILING_COMMAND_END, sizeof w0, &w0, nullptr);
    real().clGetEventProfilingInfo(write_end[d], CL_PROFILING_COMMAND_END, sizeof w1, &w1, nullptr);
    real().clReleaseEvent(write_begin[d]);
    real().clReleaseEvent(write_end[d]);
    transfer_seconds[d] = w1 > w0 ? (w1 - w0) * 1e-9 : 0;
    for (ChunkRun& r : runs[d]) {
      cl_int st = CL_COMPLETE;
      real().clGetEventInfo(r.event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
      if (st < 0) status = st;
      real().clGetEventProfilingInfo(r.event, CL_PROFILING_COMMAND_START, sizeof r.start, &r.start, nullptr);
      real().clGetEventProfilingInfo(r.event, CL_PROFILING_COMMAND_END, sizeof r.end, &r.end, nullptr);
      real().clReleaseEvent(r.event);
      r.seconds = r.end > r.start ? (r.end - r.start) * 1e-9 : 0;
      last_end = std::max(last_end, r.end);
      timings.push_back({r.chunk, r.seconds, &r == &runs[d].front() ? transfer_seconds[d] : 0.0});
    }
    for (ChunkRun& r : runs[d])
      rt.tracer->span(k->name, "kernel", d, host_end - (last_end - r.start), host_end - (last_end - r.end));
    if (w1 > w0 && last_end >= w1)
      rt.tracer->span("transfer " + k->name, "transfer", d, host_end - (last_end - w0), host_end - (last_end - w1));
  }
  if (status != CL_SUCCESS) return status;

  // Phase 3: where the written bytes now live.
  for (auto& [s, u] : stores) {
    if (!u.written) continue;
    if (!u.merge) {
      for (unsigned d : used) {
        if (u.wrote_unknown[d]) wrote_device(*s, d, u.hull);
        for (const Range& r : u.wrote[d].ranges()) wrote_device(*s, d, r);
      }
      continue;
    }
    cl_ulong t0 = now_ns();
    const std::vector<uint8_t>& before = snapshots[s];
    std::vector<uint8_t> mine(u.hull.size());
    for (unsigned d : used) {
      cl_int err = real().clEnqueueReadBuffer(rt.devices[d].queue, s->dev_mem[d], CL_TRUE,
                                              u.hull.begin, u.hull.size(), mine.data(), 0, nullptr, nullptr);
      if (err != CL_SUCCESS) return err;
      uint8_t* out = s->shadow + u.hull.begin;
      for (size_t i = 0; i < mine.size(); ++i)
        if (mine[i] != before[i]) out[i] = mine[i];
    }
    wrote_host(*s, u.hull);
    rt.tracer->span("merge", "transfer", 0, t0, now_ns());
  }

  if (split) rt.scheduler->report(key, timings);
  // Trace and log.
  if (rt.tracer->enabled() || rt.controls.log >= 1) {
    std::ostringstream line;
    line << "launch " << launch_id << " " << k->name << " dim " << dim << " groups " << total_groups;
    if (!split || used.size() < 2) line << " whole (" << (why_whole.empty() ? "scheduler" : why_whole) << ")";
    else line << " split over " << used.size() << " devices";
    for (unsigned d : used) {
      double kern = 0;
      uint64_t groups = 0;
      for (auto& r : runs[d]) kern += r.seconds, groups += r.chunk.group_count;
      line << " | dev" << d << " " << groups << " groups " << ms(kern) << " ms +" << ms(transfer_seconds[d]) << " ms xfer "
           << moved[d].bytes_to_device << " B in";
      for (auto& r : runs[d]) {
        rt.tracer->row(trace_row(launch_id, k->name, d, dim, r.chunk, total_groups, r.seconds,
                                 &r == &runs[d].front() ? transfer_seconds[d] : 0,
                                 plan ? plan->predicted_seconds(d) : 0));
      }
    }
    bool any_merge = false;
    for (auto& [s, u] : stores) any_merge |= u.merge;
    if (any_merge) line << " | merged";
    log_line(1, line.str());
  }
  (void)t_begin;
  return CL_SUCCESS;
}

}  // namespace

namespace api {

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint work_dim,
                              const size_t* global_offset, const size_t* global_size,
                              const size_t* local_size, cl_uint n, const cl_event* waits,
                              cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (!valid(k)) return CL_INVALID_KERNEL;
  if (k->program->context != q->context) return CL_INVALID_CONTEXT;
  if (work_dim < 1 || work_dim > 3) return CL_INVALID_WORK_DIMENSION;
  if (!global_size) {
    // OpenCL 2.1+: a null global size enqueues a command that does nothing.
    if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
    return enqueue(q, CL_COMMAND_NDRANGE_KERNEL, n, waits, ev, false, nullptr);
  }
  LaunchSpec spec;
  spec.dims = work_dim;
  Runtime& rt = runtime();
  size_t reqd[3] = {0, 0, 0};
  real().clGetKernelWorkGroupInfo(k->native, q->device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                  sizeof reqd, reqd, nullptr);
  size_t max_wg = rt.min_max_work_group_size();
  size_t kernel_wg = 0;
  if (real().clGetKernelWorkGroupInfo(k->native, q->device, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof kernel_wg, &kernel_wg, nullptr) == CL_SUCCESS)
    max_wg = std::min(max_wg, kernel_wg);
  bool any_zero = false;
  for (unsigned d = 0; d < work_dim; ++d) {
    spec.global[d] = global_size[d];
    spec.offset[d] = global_offset ? global_offset[d] : 0;
    any_zero |= global_size[d] == 0;
  }
  if (local_size) {
    size_t product = 1;
    for (unsigned d = 0; d < work_dim; ++d) product *= local_size[d];
    if (product > max_wg) return CL_INVALID_WORK_GROUP_SIZE;
    for (unsigned d = 0; d < work_dim; ++d) {
      if (local_size[d] == 0) return CL_INVALID_WORK_GROUP_SIZE;
      if (reqd[0] && local_size[d] != reqd[d]) return CL_INVALID_WORK_GROUP_SIZE;
      size_t max_item = SIZE_MAX;
      for (auto& dev : rt.devices) max_item = std::min(max_item, dev.max_work_item_sizes[d]);
      if (local_size[d] > max_item) return CL_INVALID_WORK_ITEM_SIZE;
      spec.local[d] = local_size[d];
      if (global_size[d] % local_size[d]) spec.uniform = false;
    }
    if (!spec.uniform && !non_uniform_allowed(q->device, k->program)) return CL_INVALID_WORK_GROUP_SIZE;
  } else if (reqd[0]) {
    for (unsigned d = 0; d < work_dim; ++d) {
      spec.local[d] = reqd[d];
      if (global_size[d] % reqd[d]) return CL_INVALID_WORK_GROUP_SIZE;
    }
  } else {
    // Largest divisor of the global size up to 64 (and the device limit) in
    // dimension 0, 1 elsewhere: every slice then has whole groups.
    size_t limit = std::min<size_t>(64, max_wg);
    for (size_t l = limit; l >= 1; --l)
      if (global_size[0] % l == 0) {
        spec.local[0] = l;
        break;
      }
  }
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  if (cl_int err = check_executable(k, q->home)) return err;
  std::vector<ArgValue> args;
  auto hold = std::make_shared<Retained>();
  {
    std::lock_guard lock(k->mutex);
    for (auto& a : k->args) {
      if (a.kind == ArgValue::Kind::Unset) return CL_INVALID_KERNEL_ARGS;
      // Arguments do not retain their buffer: one the app released is gone.
      if (a.kind == ArgValue::Kind::Mem && a.mem && !(is_live_mem(a.mem) && valid(a.mem)))
        return CL_INVALID_KERNEL_ARGS;
    }
    args = k->args;
  }
  hold->add(k);
  for (auto& a : args)
    if (a.kind == ArgValue::Kind::Mem) hold->add(a.mem);
  if (any_zero) return enqueue(q, CL_COMMAND_NDRANGE_KERNEL, n, waits, ev, false, nullptr);
  return enqueue(q, CL_COMMAND_NDRANGE_KERNEL, n, waits, ev, false,
                 [=] { return (void)hold, execute_launch(q, k, spec, args); });
}

cl_int clEnqueueTask(cl_command_queue q, cl_kernel k, cl_uint n, const cl_event* waits, cl_event* ev) {
  size_t one = 1;
  return api::clEnqueueNDRangeKernel(q, k, 1, nullptr, &one, &one, n, waits, ev);
}

}  // namespace api
}  // namespace libsplit
