// One kernel launch, in stages a reader can follow:
//   launch.cpp          validate at enqueue; at execution describe the launch
//                       (arguments, summary, split dimension) and ask the
//                       scheduler for a plan
//   launch_whole.cpp    the plan is "whole on device d": straight to d's queue,
//                       completion by device callback (zero-cost whole mode)
//   launch_split.cpp    a static split: stage each slice's regions, run the
//                       sub-kernels, merge or mark where written bytes live
//   launch_dynamic.cpp  chunk schedulers: packages handed out as devices idle
//   locality.cpp        owner computes: slices stay where their data is
//   launch_probe.cpp    speculative probes on private scratch buffers
//   launch_reports.cpp  measurements from device callbacks, handed to the
//                       scheduler by the launch thread
//   indirect_regions.cpp  regions that load from index buffers, read from
//                       the buffers' contents before the launch runs
// Which program and kernel serve a device is program/executables.h's
// answer: the stages ask it and never build a program themselves. Every
// stage runs under the runtime's exec lock.
#pragma once

#include "buffer_data.h"
#include "objects.h"
#include "runtime.h"
#include "trace.h"

#include "libsplit/region.h"
#include "libsplit/split_plan.h"
#include "sched/scheduler.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace libsplit {

struct LaunchSpec {
  unsigned dims = 1;
  uint64_t offset[3] = {0, 0, 0}, global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
  bool uniform = true;  // global % local == 0 in every dimension
  // The app gave no local size (nor does the kernel require one): `local`
  // is libsplit's choice, needed only to cut the launch into slices.
  bool local_chosen = false;
  size_t items_per_group() const {
    size_t n = 1;
    for (unsigned d = 0; d < dims; ++d) n *= local[d];
    return n;
  }
};

// One app buffer argument of the launch.
struct BufferArg {
  unsigned index;
  cl_mem mem;
  bool reads = true, writes = true;
  const ArgSummary* summary = nullptr;
  // Its read / write region reads buffer contents (indirection, resolved
  // at run time: indirect_regions.h); asked several times a launch.
  bool reads_through_index = false, writes_through_index = false;
};

// One image argument of the launch (images move whole, image_data.h).
struct ImageArg {
  unsigned index;
  cl_mem mem;
  bool writes = true;  // false for read_only arguments
};

// What the stages need to know of a launch, computed once at its start.
struct Launch {
  cl_command_queue queue = nullptr;
  cl_kernel kernel = nullptr;
  LaunchSpec spec;
  std::vector<ArgValue> args;
  bool compiled = false;                   // partition-ready program (hidden ctx argument)
  const KernelSummary* summary = nullptr;  // compiled programs only
  NDRange nd;
  std::vector<std::optional<int64_t>> scalars;  // by argument index
  std::vector<uint64_t> sizes;                  // buffer sizes by argument index
  std::vector<BufferArg> buffers;
  std::vector<ImageArg> images;
  // clSetKernelExecInfo of the kernel, replayed on the device kernel.
  std::vector<std::pair<cl_kernel_exec_info, std::vector<uint8_t>>> exec_info;
  bool split = false;        // may be cut into slices
  std::string why_whole;     // when not
  unsigned dim = 0;          // split dimension
  bool merge_predicted = true;
  uint64_t total_groups = 1;
  sched::LaunchKey key;
  uint64_t id = 0;
  // Owner computes' names of the launch's shape and kernel-at-shape
  // (locality.cpp), built at first use: asked a dozen times a split launch.
  mutable std::string shape_name, rate_name;
  // Answers the regions' loads from index buffers (indirect_regions.h);
  // null when no region loads. Last member: destroyed first, while the
  // rest of the launch it logs about is still there.
  std::shared_ptr<const LoadedValues> indexes;
  // Every buffer's read and write regions are known and nothing is atomic:
  // slices can be staged exactly and need no merge.
  bool regions_known() const;
  // Root-store byte ranges that a slice of the launch reads / writes in
  // buffer b; nullopt when the region is unknown.
  std::optional<IntervalSet> slice_bytes(const BufferArg& b, const sched::Chunk& c,
                                         bool write) const;
};

std::string ms(double seconds);

// Sets the device kernel's arguments for runtime device d; `scratch` (probes)
// replaces the device copy of a root store by another buffer.
cl_int set_device_args(cl_kernel dk, const std::vector<ArgValue>& args, unsigned d,
                       const std::map<BufferStore*, cl_mem>* scratch = nullptr);

// Enqueues chunk c of the launch on dq (offset sub-launch + hidden ctx;
// `original`: dk is the app's own kernel, which has no hidden argument).
// With LIBSPLIT_LOG=3: the host time this thread spent inside the drivers'
// clEnqueueNDRangeKernel (launch_chunk), so that a launch's LOG=3 line
// tells libsplit's own cost from the drivers'.
cl_ulong& driver_enqueue_ns();

cl_int launch_chunk(cl_command_queue dq, cl_kernel dk, const Launch& L, const sched::Chunk& c,
                    cl_event* event, bool original = false);

// One LIBSPLIT_TRACE row (seconds in, milliseconds out) of launch `launch`
// of `kernel`, split along `split_dim` into `total_groups` groups.
SubKernelRow trace_row(uint64_t launch, const std::string& kernel, unsigned split_dim, uint64_t total_groups,
                       unsigned device, const sched::Chunk& chunk, double kernel_s, double transfer_s,
                       double predicted_s);
inline SubKernelRow trace_row(const Launch& L, unsigned device, const sched::Chunk& chunk, double kernel_s,
                              double transfer_s, double predicted_s) {
  return trace_row(L.id, L.kernel->name, L.dim, L.total_groups, device, chunk, kernel_s, transfer_s, predicted_s);
}

// Kernel seconds of a completed native event (profiling START..END).
double event_seconds(cl_event e, cl_ulong* start = nullptr, cl_ulong* end = nullptr);

// LIBSPLIT_INJECT_SLOWDOWN: the factor by which runtime device `device` is
// made slower for `kernel` at launch `launch` (1 = not at all).
double injected_slowdown(unsigned device, uint64_t launch, const std::string& kernel);
// Applies it to `seconds` of kernel time measured on that device: waits the
// extra time (so the launch really takes longer) and returns the stretched time.
double apply_slowdown(unsigned device, uint64_t launch, const std::string& kernel, double seconds);

// Whether runtime device d can run work-groups of the launch's local size
// (its CL_DEVICE_MAX_WORK_GROUP_SIZE and item sizes); always when libsplit
// chose the local size. Launches are validated against the app's device
// only: a device that cannot take them is left out.
bool device_takes_local_size(const LaunchSpec& spec, unsigned d);
// The same for dk, the kernel that would run the launch's groups on d: its
// CL_KERNEL_WORK_GROUP_SIZE there (the partition-ready kernel may have a
// lower one than the app's: an extra argument, more registers). Cached.
bool kernel_takes_local_size(const Launch& L, cl_kernel dk, unsigned d);

// Runs a launch the app enqueued (on the queue's worker, under the exec
// lock): describe, plan, then whole, split or chunked; its arguments are
// taken over.
cl_int execute_launch(cl_command_queue q, cl_kernel k, const LaunchSpec& spec, std::vector<ArgValue>&& args);

// The stages.
cl_int run_whole(const Launch& L, unsigned device, sched::LaunchPlan* plan);
// (A split that falls back to whole says why in L.why_whole.)
cl_int run_split(Launch& L, sched::LaunchPlan& plan);
cl_int run_dynamic(const Launch& L, sched::LaunchPlan& plan);

// Probes: inputs are copied on the host BEFORE the real work is enqueued (the
// probe sees the launch's inputs), the probe kernels are enqueued after it.
struct StagedProbes;
// Stages the probes whose inputs can be copied within `room` seconds.
std::shared_ptr<StagedProbes> stage_probes(const Launch& L, const std::vector<sched::Chunk>& probes,
                                           double room);
void start_probes(const Launch& L, std::shared_ptr<StagedProbes> staged);

// Measurements that complete on driver threads are posted here and handed to
// the scheduler at the start of the next launch (plan and report never race).
void post_report(const sched::LaunchKey& key, std::vector<sched::ChunkTiming> timings);
void post_probe_report(const sched::LaunchKey& key, const sched::ChunkTiming& timing);
void deliver_reports();
// At the app's end: the launches whose measurements are still pending
// (asynchronous splits) are waited for and reported (scheduler, warm start,
// log and trace).
void report_pending_launches();
// A whole launch measured without a driver callback: its native event (one
// reference taken over) is polled by deliver_reports() until it completes.
// Launch thread only (under the exec lock).
void watch_whole_launch(const sched::LaunchKey& key, uint64_t launch, unsigned device, uint64_t groups,
                        cl_event native, double transfer);

}  // namespace libsplit
