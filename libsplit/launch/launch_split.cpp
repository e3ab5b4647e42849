// A static split: the plan's chunks are known up front, so the write overlap
// between devices is known before anything runs. Each device receives the
// bytes its chunks read (gathered on the host first, while every device is
// idle), runs its sub-kernels, and the written bytes are marked valid on the
// writing device; buffers whose written bytes are unknown or overlap between
// devices are diff-merged against their pre-launch contents. Reduction buffers
// (reduction.h) get a private copy per device instead, combined on the host
// after the launch.
#include "launch.h"

#include "command_times.h"
#include "completion.h"
#include "device_moves.h"
#include "device_wait.h"
#include "executables.h"
#include "indirect_regions.h"
#include "locality.h"
#include "real_api.h"
#include "reduction.h"
#include "split_outcome.h"
#include "unit_merge.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <thread>

namespace libsplit {

namespace {

// What a launch does to one root store.
struct StoreUse {
  BufferStore* store = nullptr;
  Range hull{~uint64_t(0), 0};
  bool written = false, merge = false;
  // The merge's unit: every write of the launch to the store covers whole
  // aligned units of this many bytes (summary store units, argument origins).
  unsigned unit = 128;
  std::string writers;  // the writing arguments, for messages
  std::vector<IntervalSet> needed, wrote;  // per device
  std::vector<bool> wrote_unknown;         // per device: whole hull written
  // A reduction buffer: `first` runs on the current contents, the other
  // devices on copies filled with the identity; combined after the launch.
  const ArgSummary* reduction = nullptr;
  unsigned first = 0;
};

// Drains the plan (round-robin over devices) into chunks per device.
std::vector<std::vector<ChunkRun>> drain(sched::LaunchPlan& plan, unsigned ndev) {
  std::vector<std::vector<ChunkRun>> runs(ndev);
  std::vector<bool> done(ndev, false);
  for (unsigned left = ndev; left;) {
    for (unsigned d = 0; d < ndev; ++d) {
      if (done[d]) continue;
      auto c = plan.next(d);
      if (!c) {
        done[d] = true;
        --left;
      } else if (c->group_count) {
        c->device = d;
        runs[d].push_back({*c});
      }
    }
  }
  return runs;
}

// The drained packages again, same sizes in the same round-robin order, at
// the positions `placement` gives (groups a package could not take because
// its device's run ended go out afterwards in packages of the same sizes).
std::vector<std::vector<ChunkRun>> place_packages(const std::vector<std::vector<ChunkRun>>& drained,
                                                  OwnerPlacement& placement) {
  const unsigned ndev = static_cast<unsigned>(drained.size());
  std::vector<std::vector<ChunkRun>> runs(ndev);
  std::vector<uint64_t> last(ndev, 1);
  for (size_t i = 0;; ++i) {
    bool any = false;
    for (unsigned d = 0; d < ndev; ++d) {
      if (i >= drained[d].size()) continue;
      any = true;
      last[d] = drained[d][i].chunk.group_count;
      if (auto c = placement.place(d, last[d])) runs[d].push_back({*c});
    }
    if (!any) break;
  }
  while (placement.remaining())
    for (unsigned d = 0; d < ndev; ++d)
      if (!drained[d].empty())
        if (auto c = placement.place(d, last[d])) runs[d].push_back({*c});
  return runs;
}

// Every chunk of the runs, device by device.
std::vector<sched::Chunk> chunks_in(const std::vector<std::vector<ChunkRun>>& runs) {
  std::vector<sched::Chunk> chunks;
  chunks.reserve(std::accumulate(runs.begin(), runs.end(), size_t(0), [](size_t n, auto& r) { return n + r.size(); }));
  for (const auto& r : runs)
    for (const ChunkRun& c : r) chunks.push_back(c.chunk);
  return chunks;
}

// Per root store: what each device needs staged and what it writes.
std::map<BufferStore*, StoreUse> store_uses(const Launch& L,
                                            const std::vector<std::vector<ChunkRun>>& runs,
                                            const std::vector<unsigned>& used, unsigned ndev) {
  const bool exact = !runtime().controls.merge_all;
  std::map<BufferStore*, StoreUse> stores;
  for (const BufferArg& b : L.buffers) {
    StoreUse& u = stores[b.mem->store.get()];
    u.store = b.mem->store.get();
    u.needed.resize(ndev);
    u.wrote.resize(ndev);
    u.wrote_unknown.resize(ndev, false);
    Range whole = root_range(b.mem, 0, b.mem->size);
    u.hull = {std::min(u.hull.begin, whole.begin), std::max(u.hull.end, whole.end)};
    u.written |= b.writes;
    if (b.writes) {
      const unsigned stores = b.summary && b.summary->store_unit ? b.summary->store_unit : 1;
      u.unit = std::min({u.unit, alignment_of(stores, 128), alignment_of(whole.begin, 128)});
      u.writers += (u.writers.empty() ? "arg " : ", arg ") + std::to_string(b.index);
    }
    if (used.size() >= 2 && b.summary && b.summary->reduction != ReductionOp::None) {
      // describe() made sure no other argument reaches this store. The first
      // copy goes where the contents already are, if anywhere.
      u.reduction = b.summary;
      u.written = true;
      u.first = used[0];
      for (unsigned d : used)
        if (d < b.mem->store->dev_valid.size() && b.mem->store->dev_valid[d].covers(whole)) u.first = d;
      u.needed[u.first].add(whole);
      continue;
    }
    for (unsigned d : used) {
      for (const ChunkRun& r : runs[d]) {
        if (b.reads) {
          auto reads = exact ? L.slice_bytes(b, r.chunk, false) : std::nullopt;
          if (!reads) u.needed[d].add(whole);
          else for (const Range& x : reads->ranges()) u.needed[d].add(x);
        }
        if (b.writes) {
          // Bytes in the written region the kernel may leave alone must
          // already hold the current contents on the device.
          auto writes = exact ? L.slice_bytes(b, r.chunk, true) : std::nullopt;
          if (!writes) {
            u.needed[d].add(whole);
            u.wrote_unknown[d] = true;
          } else {
            for (const Range& x : writes->ranges()) u.needed[d].add(x), u.wrote[d].add(x);
          }
        }
      }
    }
  }
  // Merge when more than one device writes a store and the written bytes
  // are unknown or overlap between devices.
  const bool force_merge = runtime().controls.merge_all || !L.compiled;
  for (auto& [s, u] : stores) {
    if (!u.written || used.size() < 2 || u.reduction) continue;
    bool merge = force_merge;
    for (unsigned i = 0; i < used.size() && !merge; ++i) {
      if (u.wrote_unknown[used[i]]) merge = true;
      for (unsigned j = i + 1; j < used.size() && !merge; ++j)
        for (const Range& r : u.wrote[used[i]].ranges())
          if (!u.wrote[used[j]].present(r).empty()) merge = true;
    }
    u.merge = merge;
  }
  return stores;
}

// A store the devices wrote without overlap (no merge): each written range
// lives on its writer from now on.
void keep_where_written(BufferStore& s, const StoreUse& u, const std::vector<unsigned>& used) {
  for (unsigned d : used) {
    if (u.wrote_unknown[d]) wrote_device(s, d, u.hull);
    for (const Range& r : u.wrote[d].ranges()) wrote_device(s, d, r);
  }
}

// Device d's private copy of a reduction buffer, filled with the identity
// (queued on its queue, before its sub-kernels).
cl_int fill_identity(BufferStore& s, const StoreUse& u, unsigned d) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = device_buffer(s, d, &err);
  if (!mem) return err;
  discard_device(s, d, u.hull);
  std::vector<uint8_t> identity = reduction_identity(u.reduction->reduction, u.reduction->reduction_bits);
  uint64_t bytes = u.hull.size() / identity.size() * identity.size();
  if (!bytes) return CL_SUCCESS;
  return real().clEnqueueFillBuffer(runtime().devices[d].queue, mem, identity.data(), identity.size(),
                                    u.hull.begin, bytes, 0, nullptr, nullptr);
}

bool any_remote_device(const std::vector<unsigned>& used) {
  return std::any_of(used.begin(), used.end(),
                     [](unsigned d) { return runtime().devices[d].place == DevicePlace::remote; });
}

// The copies of `u`'s hull on devices `order` (in that order; the first into
// `first_out`) handed to `take`. With a remote device among them all are read
// at once (read_device_buffers: one network round trip, one host buffer per
// device); else one at a time through one buffer.
cl_int read_copies(BufferStore& s, const StoreUse& u, const std::vector<unsigned>& order, uint8_t* first_out,
                   std::vector<uint64_t>& read_back, const std::function<void(unsigned, const uint8_t*)>& take) {
  const size_t n = u.hull.size();
  if (any_remote_device(order)) {
    std::vector<std::vector<uint8_t>> copies(order.size());
    std::vector<DeviceRead> reads;
    for (size_t i = 0; i < order.size(); ++i) {
      uint8_t* ptr = first_out;
      if (i > 0 || !ptr) ptr = (copies[i] = std::vector<uint8_t>(n)).data();
      reads.push_back({order[i], s.dev_mem[order[i]], u.hull.begin, n, ptr});
    }
    if (cl_int err = read_device_buffers(reads); err != CL_SUCCESS) return err;
    for (size_t i = 0; i < order.size(); ++i) {
      read_back[order[i]] += n;
      take(order[i], static_cast<const uint8_t*>(reads[i].ptr));
    }
    return CL_SUCCESS;
  }
  std::vector<uint8_t> copy(n);
  for (size_t i = 0; i < order.size(); ++i) {
    uint8_t* ptr = i == 0 && first_out ? first_out : copy.data();
    if (cl_int err = read_device_buffer(order[i], s.dev_mem[order[i]], u.hull.begin, n, ptr); err != CL_SUCCESS)
      return err;
    read_back[order[i]] += n;
    take(order[i], ptr);
  }
  return CL_SUCCESS;
}

// The devices' copies of a reduction buffer combined into the host shadow;
// read_back[d] counts the bytes read back from device d.
cl_int combine_copies(BufferStore& s, const StoreUse& u, const std::vector<unsigned>& used,
                      std::vector<uint64_t>& read_back) {
  before_shadow_change(s, u.hull);
  uint8_t* out = s.shadow + u.hull.begin;
  std::vector<unsigned> order = {u.first};
  for (unsigned d : used)
    if (d != u.first) order.push_back(d);
  cl_int err = read_copies(s, u, order, out, read_back, [&](unsigned d, const uint8_t* copy) {
    if (d != u.first)
      combine_reduction(u.reduction->reduction, u.reduction->reduction_bits, out, copy, u.hull.size());
  });
  if (err != CL_SUCCESS) return err;
  wrote_host(s, u.hull);
  return CL_SUCCESS;
}

// The used devices in increasing order of the highest work-group they ran:
// a merge takes a unit two devices changed from the later one.
std::vector<unsigned> merge_order(const std::vector<std::vector<ChunkRun>>& runs, std::vector<unsigned> used) {
  auto highest = [&](unsigned d) {
    uint64_t h = 0;
    for (const ChunkRun& r : runs[d]) h = std::max(h, r.chunk.first_group + r.chunk.group_count);
    return h;
  };
  std::stable_sort(used.begin(), used.end(), [&](unsigned a, unsigned b) { return highest(a) < highest(b); });
  return used;
}

// The devices' copies of a store several of them wrote, merged into the host
// shadow in whole store units against the launch's snapshot; units two
// devices changed differently are counted in *racy.
cl_int merge_copies(const Launch& L, BufferStore& s, const StoreUse& u, const std::vector<uint8_t>& before,
                    const std::vector<unsigned>& order, std::vector<uint64_t>& read_back, uint64_t* racy) {
  // Units are counted from the hull's start, which another (read) argument
  // of the store may have set: no wider than its alignment.
  before_shadow_change(s, u.hull);
  UnitMerge merge(before.data(), s.shadow + u.hull.begin, u.hull.size(),
                  std::min(u.unit, alignment_of(u.hull.begin, 128)));
  if (cl_int err = read_copies(s, u, order, nullptr, read_back, [&](unsigned, const uint8_t* mine) { merge.add(mine); });
      err != CL_SUCCESS)
    return err;
  if (merge.conflicts()) {
    *racy += merge.conflicts();
    log_line(2, "launch " + std::to_string(L.id) + " " + L.kernel->name + ": racy writes: " +
                    std::to_string(merge.conflicts()) + " elements of " + u.writers + " (" +
                    std::to_string(merge.unit()) + "-byte units) written differently by several devices; "
                    "each keeps one writer's whole value (the device with the highest work-groups)");
  }
  return CL_SUCCESS;
}

using Runs = std::vector<std::vector<ChunkRun>>;
using Stores = std::map<BufferStore*, StoreUse>;
using Snapshots = std::map<BufferStore*, std::vector<uint8_t>>;

// Where the runs go: owner computes (locality.h) may keep a one-slice-per-
// device plan on the partition that already holds the data, and puts the
// packages of a chunk scheduler on the groups their device ran last. Returns
// owner computes' account of it ("" when it had nothing to say).
std::string place_runs(Launch& L, sched::LaunchPlan& plan, Runs& runs, unsigned ndev) {
  // Reading index buffers to find the regions is host time on the app's
  // path: no more than the split can gain (spmv large on 2 H100: 0.5 s of
  // reads for a split worth 1.6 ms, which the gate then declined).
  if (const double allowance = plan.staging_allowance(); allowance < INFINITY) limit_index_reads(L, allowance);
  std::string locality;
  if (std::any_of(runs.begin(), runs.end(), [](const auto& r) { return r.size() > 1; }))
    if (OwnerPlacement placement(L, ndev); placement.active()) runs = place_packages(runs, placement);
  const cl_ulong t0 = now_ns();
  if (auto kept = owner_computes_split(L, chunks_in(runs), &locality)) {
    for (auto& r : runs) r.clear();
    for (const sched::Chunk& c : *kept) runs[c.device].push_back({c});
  }
  if (!locality.empty())
    log_line(2, "launch " + std::to_string(L.id) + " owner computes: " + locality + " (decided in " +
                    std::to_string((now_ns() - t0) / 1000) + " us)");
  return locality;
}

// One slice per device whose data movement the split's gain cannot pay
// back (the scheduler's allowance, from times; the bytes from regions and
// validity): whole on home instead. On 2 H200 the first even split of a
// 0.15 ms stencil launch staged 151 MB (18 ms) for a 0.07 ms gain. Returns
// the whole launch's status when declined.
std::optional<cl_int> declined_for_staging(Launch& L, sched::LaunchPlan& plan, const Runs& runs) {
  const double allowance = plan.staging_allowance();
  if (!(allowance < INFINITY) || !L.regions_known() ||
      !std::all_of(runs.begin(), runs.end(), [](const auto& r) { return r.size() <= 1; }))
    return std::nullopt;
  const StagingEstimate bytes = staging_bytes(L, chunks_in(runs));
  const double cost = staging_seconds(bytes);
  if (!(cost > allowance)) return std::nullopt;
  log_line(2, "launch " + std::to_string(L.id) + ": split declined, its data movement (" +
                  std::to_string(bytes.to_device) + " B to devices, " + std::to_string(bytes.to_host) +
                  " B back, " + ms(cost) + " ms) would not pay back (" + ms(allowance) + " ms)");
  runtime().scheduler->split_declined(L.key);
  return run_whole(L, L.queue->home, &plan);
}

// A device of the split whose context is still opening or whose program is
// still building, or whose kernel cannot take the local size: whole on the
// app's device instead. Returns the whole launch's status when declined.
std::optional<cl_int> declined_by_devices(Launch& L, sched::LaunchPlan& plan, const std::vector<unsigned>& used) {
  if (!devices_ready(L.kernel, used)) {
    L.why_whole = "a device of the split not ready yet (opening, or its program building)";
    return run_whole(L, L.queue->home, nullptr);
  }
  for (unsigned d : used) {
    cl_int err = CL_SUCCESS;
    if (cl_kernel dk = device_kernel(L.kernel, d, &err); dk && !kernel_takes_local_size(L, dk, d)) {
      log_line(2, "launch " + std::to_string(L.id) + ": split declined, the kernel on dev" + std::to_string(d) +
                      " cannot take the local size: whole on the app's device");
      runtime().scheduler->split_declined(L.key);
      return run_whole(L, L.queue->home, &plan);
    }
  }
  return std::nullopt;
}

// The split's outcome as far as known before it runs (*slowed: a device's
// kernel is stretched by LIBSPLIT_INJECT_SLOWDOWN).
std::unique_ptr<SplitOutcome> new_outcome(const Launch& L, sched::LaunchPlan& plan, const std::vector<unsigned>& used,
                                          unsigned ndev, bool* slowed) {
  auto o = std::make_unique<SplitOutcome>();
  o->key = L.key, o->id = L.id, o->kernel = L.kernel->name, o->dim = L.dim, o->total_groups = L.total_groups;
  o->used = used;
  o->write_begin.assign(ndev, nullptr), o->write_end.assign(ndev, nullptr);
  o->moved.resize(ndev), o->gather_seconds_per_device.assign(ndev, 0), o->predicted.assign(ndev, 0);
  o->slowdown.assign(ndev, 1), o->transfer_seconds.assign(ndev, 0), o->read_back.assign(ndev, 0);
  o->idle_before.assign(ndev, -1);
  *slowed = false;
  for (unsigned d : used) {
    o->predicted[d] = plan.predicted_seconds(d);
    o->slowdown[d] = injected_slowdown(d, L.id, L.kernel->name);
    *slowed |= o->slowdown[d] != 1.0;
  }
  return o;
}

// Stage: merged stores keep a snapshot; every byte a device lacks is first
// gathered on the host (reading from the other devices while they are
// idle), so that once kernels run only host-to-device writes remain.
cl_int gather_on_host(const Launch& L, Stores& stores, const std::vector<unsigned>& used, Snapshots& snapshots,
                      SplitOutcome& o) {
  for (auto& [s, u] : stores) {
    if (!u.merge) continue;
    // The diff needs every device's copy equal to the snapshot: undefined
    // bytes take the shadow's contents everywhere first.
    for (const Range& r : s->undefined.present(u.hull)) wrote_host(*s, r);
    if (cl_int err = ensure_host(*s, u.hull)) return err;
    snapshots[s].assign(s->shadow + u.hull.begin, s->shadow + u.hull.end);
    for (unsigned d : used) u.needed[d].add(u.hull);
  }
  cl_ulong t0 = now_ns();
  if (devices_move_together()) {
    std::vector<DeviceNeed> needs;  // what the devices need from one another moves together first
    for (auto& [s, u] : stores)
      for (unsigned d : used) for (const Range& r : u.needed[d].ranges()) needs.push_back({s, d, r});
    if (cl_int err = move_between_devices_together(needs, o.moved, o.gather_seconds_per_device)) return err;
  }
  for (unsigned d : used) {
    cl_ulong d0 = now_ns();
    for (auto& [s, u] : stores)
      for (const Range& r : u.needed[d].ranges())
        if (cl_int err = stage_for_device(*s, d, r, &o.moved[d])) return err;
    o.gather_seconds_per_device[d] += (now_ns() - d0) * 1e-9;
  }
  cl_ulong t1 = now_ns();
  o.gather_seconds = (t1 - t0) * 1e-9;
  if (t1 - t0 > 20000) runtime().tracer->span("gather " + L.kernel->name, "transfer", 0, t0, t1);
  return CL_SUCCESS;
}

// Run: per device, its writes then its sub-launches; devices overlap.
// Untimed: no event (nothing will read the times).
cl_int enqueue_on_devices(const Launch& L, Stores& stores, Runs& runs, const std::vector<unsigned>& used,
                          SplitOutcome& o, bool timed) {
  Runtime& rt = runtime();
  for (unsigned d : used) {
    cl_int err = CL_SUCCESS;
    cl_command_queue dq = rt.devices[d].queue;
    // Markers around the writes time them; a device that lacks nothing
    // (the usual launch once owner computes has settled) gets none.
    bool writes = false;
    for (auto& [s, u] : stores) {
      writes |= u.reduction && d != u.first;
      for (const Range& r : u.needed[d].ranges()) writes |= !device_holds(*s, d, r);
    }
    writes = writes && timed;
    if (writes) real().clEnqueueMarkerWithWaitList(dq, 0, nullptr, &o.write_begin[d]);
    for (auto& [s, u] : stores) {
      for (const Range& r : u.needed[d].ranges())
        if ((err = ensure_device(*s, d, r, &o.moved[d]))) return err;
      if (u.reduction && d != u.first && (err = fill_identity(*s, u, d))) return err;
    }
    if (writes) real().clEnqueueMarkerWithWaitList(dq, 0, nullptr, &o.write_end[d]);
    cl_kernel dk = device_kernel(L.kernel, d, &err);
    if (!dk) return err;
    if ((err = set_device_args(dk, L.args, d))) return err;
    for (ChunkRun& r : runs[d])
      if ((err = launch_chunk(dq, dk, L, r.chunk, timed ? &r.event : nullptr))) return err;
    real().clFlush(dq);
  }
  return CL_SUCCESS;
}

// Nothing to do on the host after the sub-kernels: the written bytes live
// where they were written from now on (every later command that reads them
// goes through the writer's in-order queue), and the app's event completes
// with the device queues' work (completion.h).
void complete_with_devices(const Stores& stores, const Runs& runs, const std::vector<unsigned>& used, bool profiled) {
  Runtime& rt = runtime();
  for (auto& [s, u] : stores)
    if (u.written) keep_where_written(*s, u, used);
  for (unsigned d : used) {
    if (!profiled) {
      note_device_work(rt.devices[d].queue);
      continue;
    }
    // The app's event completes with each device's last sub-kernel, which
    // also gives its END (and the first one its START) on the host clock.
    device_to_host_ns(d, 0);  // measures the clock offset here, not in the callback
    cl_event first = runs[d].front().event, last = runs[d].back().event;
    // A retain the driver refused: completion without the device's times
    // (releasing an event not retained would free the driver's own).
    if (real().clRetainEvent(first) != CL_SUCCESS) {
      note_device_work(rt.devices[d].queue);
      continue;
    }
    if (real().clRetainEvent(last) != CL_SUCCESS) {
      real().clReleaseEvent(first);
      note_device_work(rt.devices[d].queue);
      continue;
    }
    complete_after(rt.devices[d].queue, last, [d, first](cl_event native, cl_event app) {
      cl_ulong start = 0, end = 0;
      real().clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
      real().clGetEventProfilingInfo(native, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
      real().clReleaseEvent(first);
      if (start && end >= start) report_device_span(app, d, start, end);
    });
  }
}

// Waits for the devices' sub-kernels and reads their times; the status of
// one that failed, else CL_SUCCESS.
cl_int wait_for_devices(SplitOutcome& o, const std::vector<unsigned>& used) {
  cl_int lost = CL_SUCCESS;  // a device that cannot finish (lost) fails the launch
  std::vector<cl_command_queue> queues;
  for (unsigned d : used) queues.push_back(runtime().devices[d].queue);
  for (cl_int err : finish_device_queues(queues))
    if (err != CL_SUCCESS) lost = err;
  const cl_int status = lost != CL_SUCCESS ? lost : read_split_times(o);
  // LIBSPLIT_INJECT_SLOWDOWN: each device's kernel time as measured and as
  // stretched; the launch then waits for the slowest stretched device (the
  // devices run side by side: the waits do not add up).
  double measured_slowest = 0, stretched_slowest = 0;
  for (unsigned d : used) {
    double stretched = 0;
    for (const ChunkRun& r : o.runs[d]) {
      stretched += r.seconds;
      report_device_span(d, r.start, r.end);
    }
    measured_slowest = std::max(measured_slowest, stretched / o.slowdown[d]);
    stretched_slowest = std::max(stretched_slowest, stretched);
  }
  if (stretched_slowest > measured_slowest)
    std::this_thread::sleep_for(std::chrono::duration<double>(stretched_slowest - measured_slowest));
  return status;
}

// Where the written bytes now live: combined, merged, or kept where they
// were written. The read-backs of combines and merges count in the trace's
// bytes_to_host (not in what the locality record is told: its figures are
// the staging before the kernels).
cl_int settle_written(const Launch& L, Stores& stores, const std::vector<unsigned>& used, Snapshots& snapshots,
                      SplitOutcome& o) {
  Runtime& rt = runtime();
  bool any_merge = false, any_reduction = false;
  for (auto& [s, u] : stores) {
    if (!u.written) continue;
    if (u.reduction) {
      any_reduction = true;
      cl_ulong t0 = now_ns();
      if (cl_int err = combine_copies(*s, u, used, o.read_back)) return err;
      rt.tracer->span("combine", "transfer", 0, t0, now_ns());
      continue;
    }
    if (!u.merge) {
      keep_where_written(*s, u, used);
      continue;
    }
    any_merge = true;
    cl_ulong t0 = now_ns();
    if (cl_int err = merge_copies(L, *s, u, snapshots[s], merge_order(o.runs, used), o.read_back, &o.racy))
      return err;
    wrote_host(*s, u.hull);
    rt.tracer->span("merge", "transfer", 0, t0, now_ns());
  }
  std::string notes;
  if (any_merge) notes += " | merged";
  if (o.racy) notes += " (" + std::to_string(o.racy) + " racy elements: LIBSPLIT_LOG=2 names them)";
  if (any_reduction) notes += " | reduced (combined on the host)";
  o.notes = notes + o.notes;
  return CL_SUCCESS;
}

}  // namespace

cl_int run_split(Launch& L, sched::LaunchPlan& plan) {
  Runtime& rt = runtime();
  const unsigned ndev = static_cast<unsigned>(rt.devices.size());
  Runs runs = drain(plan, ndev);
  const std::string locality = place_runs(L, plan, runs, ndev);
  if (std::optional<cl_int> whole = declined_for_staging(L, plan, runs)) return *whole;
  std::vector<unsigned> used;
  for (unsigned d = 0; d < ndev; ++d)
    if (!runs[d].empty()) used.push_back(d);
  if (used.empty()) return CL_SUCCESS;
  if (std::optional<cl_int> whole = declined_by_devices(L, plan, used)) return *whole;
  // The host's time in this split launch: its enqueue, or, where it must
  // wait for its sub-kernels (merge, reduction), start to merge.
  const cl_ulong host_start = now_ns();
  const uint64_t opening_epoch = rt.opening_epoch.load(std::memory_order_acquire);
  Stores stores = store_uses(L, runs, used, ndev);
  bool slowed = false;
  std::unique_ptr<SplitOutcome> o = new_outcome(L, plan, used, ndev, &slowed);
  bool host_after = false;  // merged or combined on the host once the sub-kernels are done
  for (const auto& [s, u] : stores) host_after |= u.merge || u.reduction;
  // LIBSPLIT_INJECT_SLOWDOWN stretches the launch by waiting.
  const bool async = rt.controls.async_splits && !host_after && !slowed;
  // A profiled app queue's event gets its device times from the sub-kernels.
  const bool profiled = (L.queue->properties & CL_QUEUE_PROFILING_ENABLE) && running_command_observed();
  const bool timed = !async || times_read(plan, profiled);

  Snapshots snapshots;
  if (cl_int err = gather_on_host(L, stores, used, snapshots, *o)) return err;
  if (cl_int err = enqueue_on_devices(L, stores, runs, used, *o, timed)) return err;
  o->record = record_split_partition(L, chunks_in(runs));
  o->first_split = first_split_of_shape(L.key);
  if (!timed) {
    complete_with_devices(stores, runs, used, /*profiled=*/false);
    log_untimed_split(*o, runs);
    return CL_SUCCESS;
  }
  if (locality.find("-> joint partition") != std::string::npos) o->notes += " | joint partition of the cycle (owner computes)";
  else if (locality.find("-> plan") == std::string::npos && !locality.empty()) o->notes += " | kept partition (owner computes)";

  if (async) {
    complete_with_devices(stores, runs, used, profiled);
    o->runs = std::move(runs);
    end_host_time(*o, host_start, opening_epoch);
    defer_split_report(std::move(o));
    return CL_SUCCESS;
  }
  o->runs = std::move(runs);
  if (cl_int status = wait_for_devices(*o, used); status != CL_SUCCESS) return status;
  if (cl_int err = settle_written(L, stores, used, snapshots, *o)) return err;
  end_host_time(*o, host_start, opening_epoch);
  report_split(*o);
  return CL_SUCCESS;
}

}  // namespace libsplit
