// libsplit's own OpenCL objects. The app holds pointers to these; no vendor
// handle of ours reaches the app and no app handle reaches a vendor driver.
// Every object starts with a header (magic + kind + reference count) so a
// handle can be checked before use.
#pragma once

#include "clock.h"
#include "interval_set.h"
#include "compile_unit.h"
#include "libsplit/split_plan.h"
#include "libsplit/summary.h"

#include <CL/cl.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace libsplit {

enum class ObjKind : uint32_t { Context = 1, Queue, Mem, Program, Kernel, Event, Sampler };
constexpr uint32_t kObjMagic = 0x6C73706Cu;  // "lspl"

struct ObjHeader {
  uint32_t magic = kObjMagic;
  ObjKind kind;
  std::atomic<int> refs{1};
  explicit ObjHeader(ObjKind k) : kind(k) {}
};

// The data of one app buffer (a root buffer; sub-buffers share their
// parent's): a host shadow plus one cl_mem per device, and which bytes are
// valid where. Every byte is valid in at least one place.
// A process-wide counter: a new value names new contents of some store.
uint64_t new_content_version();

struct BufferStore {
  uint64_t size = 0;
  // Renewed whenever bytes of the store are written (wrote_host,
  // wrote_device); (store, version) names one content, so caches derived
  // from the contents (indirect_regions.h) stay valid while it holds.
  uint64_t version = new_content_version();
  uint8_t* shadow = nullptr;        // USE_HOST_PTR: the app's memory
  // Otherwise ours, from calloc: zeros, as before, without touching the
  // pages (a 256 MB buffer cost ~60 ms of page faults when zeroed here).
  struct FreeBytes {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t[], FreeBytes> owned;
  IntervalSet host_valid;
  // Bytes nobody wrote since creation (no host pointer given): their
  // contents are undefined, so every copy is as good as any other and none
  // is ever transferred (an output buffer is not uploaded before its kernel).
  IntervalSet undefined;
  std::vector<cl_mem> dev_mem;      // per runtime device, created lazily
  std::vector<IntervalSet> dev_valid;
  // Per device, a private copy that speculative probes read and write
  // (launch_probe.cpp): never valid data, never seen by the app.
  std::vector<cl_mem> probe_mem;
  // USE_HOST_PTR memory the app may read after any wait (app_host_memory.h).
  bool app_host_memory = false;
  // Writes to devices queued without waiting (ensure_device) still read
  // their bytes from the shadow: whoever changes those bytes first waits
  // for them (before_shadow_change). One event reference each.
  std::vector<std::pair<Range, cl_event>> shadow_readers;
  ~BufferStore();
};

// Keeps native event e (one reference taken over) of a write to a device
// queued without waiting that reads bytes r of s's shadow.
void note_shadow_reader(BufferStore& s, Range r, cl_event e);
// Before the host changes bytes r of the shadow (the app's writes, maps,
// fills and copies, reads back from devices, merges, freeing it): waits for
// the writes to devices that still read them. Not from a driver callback.
void before_shadow_change(BufferStore& s, Range r);

struct ImageStore;         // image_data.h
struct PendingCompletion;  // completion.cpp
struct PreparedProgram;    // prepared_program.h

struct ArgValue {
  enum class Kind : uint8_t { Unset, Bytes, Local, Mem, Sampler, Svm } kind = Kind::Unset;
  std::vector<uint8_t> bytes;  // Bytes
  size_t local_size = 0;       // Local
  cl_mem mem = nullptr;        // Mem (ours; may be null). Not retained: a kernel
                               // argument does not keep a buffer alive (its
                               // destructor callback fires at the app's release);
                               // enqueued launches retain what they use.
  cl_sampler sampler = nullptr;  // Sampler (ours)
  void* svm = nullptr;           // Svm: a pointer of the app's SVM allocation
};

}  // namespace libsplit

struct _cl_context {
  libsplit::ObjHeader hdr{libsplit::ObjKind::Context};
  cl_context real = nullptr;  // native context over the app's devices: validation, native programs
  std::vector<cl_device_id> devices;
  std::vector<cl_context_properties> properties;  // as given, 0-terminated (empty if none)
  std::mutex mutex;
  std::vector<std::pair<void(CL_CALLBACK*)(cl_context, void*), void*>> destructor_callbacks;
  // References the app no longer sees (a program the app released, kept for
  // its background preparation): the app's view of the context ends, and its
  // destructor callbacks run, when refs - hidden_refs reaches 0, as natively;
  // the object itself lives until refs does.
  std::atomic<int> hidden_refs{0};
  std::atomic<bool> destructors_ran{false};
};

struct _cl_event;

struct _cl_command_queue {
  libsplit::ObjHeader hdr{libsplit::ObjKind::Queue};
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  unsigned home = 0;  // runtime device index running unsplit work
  cl_command_queue_properties properties = 0;
  std::vector<cl_queue_properties> properties_array;  // clCreateCommandQueueWithProperties
  // Worker: executes commands in order once their wait lists completed.
  struct Command {
    std::vector<cl_event> waits;  // retained
    cl_event event = nullptr;     // retained
    std::function<cl_int()> run;
  };
  std::mutex mutex;
  std::condition_variable cv, idle_cv;
  std::deque<Command> commands;
  size_t in_flight = 0;  // queued + running
  // Commands that ran but wait for their device work (completion.h), in order.
  std::deque<std::shared_ptr<libsplit::PendingCompletion>> pending;
  // Device queues with work of commands nobody can observe (no app event
  // kept, not blocking): no native event was made for it (completion.h).
  std::vector<cl_command_queue> untracked;
  bool stopping = false;
  // An in-order queue whose command failed (api_queue.cpp, run_command).
  std::atomic<bool> command_failed{false};
  std::thread worker;
};

struct _cl_mem {
  libsplit::ObjHeader hdr{libsplit::ObjKind::Mem};
  cl_context context = nullptr;
  // Buffers have a store; images an image store (image_data.h); pipes the
  // real pipe, made in the internal context of the app context's device.
  cl_mem_object_type type = CL_MEM_OBJECT_BUFFER;
  std::shared_ptr<libsplit::ImageStore> image;
  cl_mem pipe = nullptr;
  cl_mem_flags flags = 0;
  uint64_t size = 0;
  void* host_ptr = nullptr;            // as given by the app
  cl_mem parent = nullptr;             // sub-buffers: retained parent
  uint64_t origin = 0;                 // offset in the root store
  // Sub-buffers: per runtime device, the driver's sub-buffer handed to
  // kernels (device_arg), made on first use and released with this object,
  // as the app releases its own (NVIDIA's driver crashed releasing 16
  // overlapping ones together at the parent's end; the app's order works).
  std::vector<cl_mem> device_subs;
  std::shared_ptr<libsplit::BufferStore> store;
  std::vector<cl_mem_properties> properties;
  std::atomic<cl_uint> map_count{0};
  std::mutex mutex;
  struct Mapping {
    uint64_t offset, size;
    cl_map_flags flags;
  };
  std::multimap<void*, Mapping> mappings;
  std::vector<std::pair<void(CL_CALLBACK*)(cl_mem, void*), void*>> destructor_callbacks;
};

struct _cl_program {
  libsplit::ObjHeader hdr{libsplit::ObjKind::Program};
  cl_context context = nullptr;
  // Background jobs holding it (run_background_job): references the app does
  // not see. Once only they hold it, its hold on `context` is hidden too
  // (context_hold_hidden): the app's release of the context then destroys
  // it as far as the app can tell (lifetimes test app, cold cache).
  std::mutex holds_mutex;
  int job_holds = 0;                 // under holds_mutex
  bool context_hold_hidden = false;  // under holds_mutex
  cl_program native = nullptr;  // on context->real: errors, logs, binaries, kernel validation
  // What libsplit builds on its devices: `source` with `options` when
  // from_source (headers inlined at the app's build, see program_source.h),
  // else the units of a link, else binaries / IL.
  bool from_source = false;
  std::string app_source;  // as the app gave it (clCreateProgramWithSource)
  std::string source;
  std::vector<std::vector<unsigned char>> binaries;  // from clCreateProgramWithBinary
  std::vector<cl_device_id> binary_devices;
  std::vector<unsigned char> il;  // from clCreateProgramWithIL
  // Separate compilation, captured when the app compiles and links: a
  // compiled object has one unit, a library or a linked executable the units
  // of everything linked into it. units_known: every unit's source is known
  // (objects and libraries given back as binaries are recognised by content).
  std::vector<libsplit::CompileUnit> units;
  bool units_known = false;
  bool library = false;          // linked with -create-library
  std::string link_options;      // of the clLinkProgram that made it
  std::string options;
  // The devices of the app's last successful clBuildProgram (all of the
  // context's when it named none): where `native` has an executable.
  std::vector<cl_device_id> built_devices;
  std::atomic<int> kernels_attached{0};
  // Execution side, prepared at the app's build or link, else at the first
  // launch (under the runtime's exec lock; read without it at enqueue).
  // Preparing: a background job (program_prep.h) builds the original source
  // per platform, then the partition-ready program; launches run whole on
  // the originals until the job's result is adopted.
  enum class Mode { Unprepared, Preparing, Compiled, Plain, Whole, Failed };
  std::atomic<Mode> mode{Mode::Unprepared};
  std::string mode_reason;
  std::optional<libsplit::ProgramSummary> summary;
  std::vector<cl_program> per_platform;  // by runtime platform slot
  // Platform slots without a device of the app's context get their program
  // only when a probe or a split first wants one of their devices
  // (lazy_slots.h): on a GPU node the CPU's build of it cost a fresh
  // machine's first run 1.1 s, waited for at exit, and most programs never
  // run there. lazy_state and lazy_built are under prep_mutex.
  std::string lazy_source;  // what those slots build, with lazy_options
  std::string lazy_options;
  // States of such a slot (lazy_slots.h): Deferred (not cached: waits for
  // the run to pay for it, or a split to want it) -> Pending -> Building ->
  // Built (in lazy_built) -> None once a launch took it into per_platform;
  // or Failed. None also where nothing is to be built.
  enum class LazySlot : unsigned char { None, Pending, Building, Built, Failed, Deferred };
  std::vector<LazySlot> lazy_state;       // by slot
  unsigned long long first_use_ns = 0;    // the program's first launch (coarse clock)
  std::vector<bool> lazy_cached;          // by slot: its device binaries are cached
  std::vector<cl_program> lazy_built;     // by slot: built in the background, not taken yet
  std::atomic<bool> lazy_failed{false};   // a slot's build failed: launches run whole
  std::mutex prep_mutex;
  std::condition_variable prep_cv;
  std::vector<cl_program> originals;     // by slot: the original source, while Preparing
  // A background job not started yet (program_prep.h): the app's own
  // builds already serve its devices; it starts once the program's launches
  // have gone on for LIBSPLIT_PREPARE_AFTER_MS. Under prep_mutex.
  // Atomic: every launch reads it without the lock (maybe_start_deferred).
  std::atomic<bool> prep_deferred{false};
  unsigned long long first_launch_ns = 0;
  std::vector<cl_program> deferred_ready;  // the job's `ready`, one reference each
  unsigned prep_generation = 0;          // a rebuild makes an older job's result stale
  std::shared_ptr<libsplit::PreparedProgram> prepared;  // the job's answer, adopted at a launch
  std::vector<std::pair<void(CL_CALLBACK*)(cl_program, void*), void*>> release_callbacks;
};

struct _cl_kernel {
  libsplit::ObjHeader hdr{libsplit::ObjKind::Kernel};
  cl_program program = nullptr;  // retained
  std::string name;
  cl_kernel native = nullptr;
  cl_uint num_args = 0;
  std::mutex mutex;
  std::vector<libsplit::ArgValue> args;
  std::vector<cl_kernel_arg_address_qualifier> address;  // 0 when the driver does not say
  std::vector<bool> const_pointee;  // "const T*" arguments: never written
  std::vector<cl_kernel_arg_access_qualifier> access;  // images: read_only arguments are never written
  std::vector<bool> sampler_arg;                       // sampler_t arguments
  std::vector<bool> image_arg;                         // image*_t arguments
  // clSetKernelExecInfo calls, replayed on the device kernel of a launch;
  // SVM pointers given this way tie the kernel to one device.
  std::vector<std::pair<cl_kernel_exec_info, std::vector<uint8_t>>> exec_info;
  std::vector<cl_kernel> per_device;  // on the program's per-platform programs, lazily
  std::vector<cl_kernel> per_device_original;  // on its originals while it is Preparing
  // What a launch's regions are evaluated from, for the memos below, which
  // hold results for the kernel's latest shape: an iterative app launches
  // with the same arguments again and again. (The summary pointer
  // identifies the program's build: a program with kernels cannot be
  // rebuilt.)
  struct LaunchShape {
    const libsplit::KernelSummary* summary = nullptr;
    std::vector<std::optional<int64_t>> scalars;
    libsplit::NDRange nd;
    std::vector<uint64_t> sizes;
    bool is(const libsplit::KernelSummary* s, const std::vector<std::optional<int64_t>>& sc,
            const libsplit::NDRange& n, const std::vector<uint64_t>& si) const {
      return summary == s && nd == n && scalars == sc && sizes == si;
    }
  };
  // The latest split-dimension choice (evaluating the regions for it took
  // 25-100 us per launch on the GPU node).
  struct SplitMemo {
    LaunchShape shape;
    unsigned parts = 0;
    libsplit::SplitChoice choice;
  };
  std::optional<SplitMemo> split_memo;  // under mutex
  // The byte ranges slices of the latest launch shape read and write
  // (Launch::slice_bytes), by (argument, write, dimension, first group,
  // groups): a settled split asks for the same slices at every launch, and
  // evaluating them was a fifth of a split launch's host instructions
  // (callgrind, ep over 2 PoCL devices). Regions read through an index
  // buffer are not kept (their bytes follow the index's contents).
  struct SliceMemo {
    LaunchShape shape;
    std::map<std::array<uint64_t, 5>, std::optional<std::vector<libsplit::ByteRange>>> slices;
  };
  SliceMemo slice_memo;  // under mutex
  // Per argument of `through_index_of`'s kernel: whether its read / write
  // region loads from an index buffer (region_mentions_load walks every
  // expression: 7 % of a split launch's host instructions when done per
  // launch). Under mutex.
  const libsplit::KernelSummary* through_index_of = nullptr;
  std::vector<std::array<bool, 2>> through_index;
  // The native kernel's work-group limits on the device last asked: launch
  // validation needs them every launch, and each query took ~1 us on NVIDIA.
  struct WorkGroupLimits {
    cl_device_id device = nullptr;
    size_t required[3] = {0, 0, 0};  // CL_KERNEL_COMPILE_WORK_GROUP_SIZE
    size_t max = 0;                  // CL_KERNEL_WORK_GROUP_SIZE, 0 if unknown
  };
  WorkGroupLimits wg_limits;  // under mutex
  // CL_KERNEL_WORK_GROUP_SIZE of the device kernels that ran its groups
  // (launch.h kernel_takes_local_size), SIZE_MAX when unknown; under mutex.
  std::map<cl_kernel, size_t> device_wg_max;
};

// A sampler: the native one on the app's context (validation, queries, the
// native kernel's argument check), one per internal context made lazily.
struct _cl_sampler {
  libsplit::ObjHeader hdr{libsplit::ObjKind::Sampler};
  cl_context context = nullptr;
  cl_sampler native = nullptr;
  std::vector<cl_sampler_properties> properties;  // as given (clCreateSamplerWithProperties)
  bool with_properties = false;
  std::vector<cl_sampler> per_slot;  // by runtime platform slot
};

struct _cl_event {
  libsplit::ObjHeader hdr{libsplit::ObjKind::Event};
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;  // null for user events
  cl_command_type type = 0;
  bool profiling = false;
  std::mutex mutex;
  std::condition_variable cv;
  cl_int status = CL_QUEUED;
  cl_ulong times[5] = {0, 0, 0, 0, 0};  // queued, submit, start, end, complete (ns)
  // Span of the command's device work on the host clock, when it reported
  // one (report_device_span): the event's START and END.
  cl_ulong device_start = 0, device_end = 0;
  struct Callback {
    cl_int on;
    void(CL_CALLBACK* fn)(cl_event, cl_int, void*);
    void* user;
  };
  std::vector<Callback> callbacks;
};

namespace libsplit {

template <class H>
constexpr ObjKind kind_of();
template <> constexpr ObjKind kind_of<cl_context>() { return ObjKind::Context; }
template <> constexpr ObjKind kind_of<cl_command_queue>() { return ObjKind::Queue; }
template <> constexpr ObjKind kind_of<cl_mem>() { return ObjKind::Mem; }
template <> constexpr ObjKind kind_of<cl_program>() { return ObjKind::Program; }
template <> constexpr ObjKind kind_of<cl_kernel>() { return ObjKind::Kernel; }
template <> constexpr ObjKind kind_of<cl_event>() { return ObjKind::Event; }
template <> constexpr ObjKind kind_of<cl_sampler>() { return ObjKind::Sampler; }

// True when h is a live libsplit object of the handle's kind.
template <class H>
bool valid(H h) {
  if (!h) return false;
  const ObjHeader* hdr = reinterpret_cast<const ObjHeader*>(h);
  return hdr->magic == kObjMagic && hdr->kind == kind_of<H>() && hdr->refs.load() > 0;
}

template <class H>
void retain(H h) {
  reinterpret_cast<ObjHeader*>(h)->refs.fetch_add(1);
}

// Drops one reference; destroys the object at zero (definitions in objects.cpp).
void release(cl_context);
void release(cl_command_queue);
void release(cl_mem);
void release(cl_program);
void release(cl_kernel);
void release(cl_event);
void release(cl_sampler);

// The reference count the app sees (CL_*_REFERENCE_COUNT): libsplit's own
// hidden holds left out.
template <class H>
cl_uint ref_count(H h) {
  return static_cast<cl_uint>(reinterpret_cast<ObjHeader*>(h)->refs.load());
}
template <>
cl_uint ref_count(cl_context c);
template <>
cl_uint ref_count(cl_program p);

// A background job's hold on program p (background_jobs.cpp): a reference
// the app does not see.
void hold_for_job(cl_program p);
void release_for_job(cl_program p);

// Registry of live buffers: answers "is this 8-byte kernel argument one of
// our cl_mem?" without dereferencing it (arguments of unknown address space).
void register_mem(cl_mem m);
bool is_live_mem(const void* p);
// The same for samplers (a sampler argument is 8 bytes of private data).
void register_sampler(cl_sampler s);
bool is_live_sampler(const void* p);

// Writes an info answer following the clGet*Info rules.
cl_int set_info(size_t size, void* value, size_t* size_ret, const void* data, size_t n);
template <class T>
cl_int set_info_value(size_t size, void* value, size_t* size_ret, const T& v) {
  return set_info(size, value, size_ret, &v, sizeof(T));
}

// Event life: status changes wake waiters and fire callbacks (outside locks).
cl_event new_event(cl_context ctx, cl_command_queue q, cl_command_type type);
void set_event_status(cl_event e, cl_int status);
cl_int wait_event(cl_event e);  // returns the final status
void stop_queue(cl_command_queue q);

}  // namespace libsplit
