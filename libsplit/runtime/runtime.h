// The process-wide state of the shim: controls, the device set with one
// internal context per platform and one profiling queue per device, the
// scheduler, the trace writers.
#pragma once

#include "controls.h"
#include "device_place.h"
#include "discovery.h"
#include "sched/scheduler.h"

#include <CL/cl.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace libsplit {

struct Device {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  unsigned slot = 0;  // index into Runtime::platforms / contexts
  cl_command_queue queue = nullptr;
  cl_command_queue probe_queue = nullptr;  // speculative probes (launch_probe.cpp), lazily
  std::string name;
  size_t max_work_group_size = 0;
  size_t max_work_item_sizes[3] = {0, 0, 0};
  cl_ulong local_mem = 0, max_alloc = 0, global_mem = 0, max_constant = 0;
  cl_uint base_addr_align = 0;
  // CL_DEVICE_VERSION as 10 * major + minor (12, 30): the loader's calls of
  // entry points newer than the driver never returned (Oclgrind, 1.2).
  unsigned cl_version = 0;
  // Another device of libsplit's has the same name, compute units and
  // clock: an even split with it is a safe first guess (a second GPU).
  bool has_twin = false;
  bool is_gpu = false;
  // On the host's cores, its own hardware, or another host (PoCL-Remote).
  DevicePlace place = DevicePlace::own_hardware;
  // Whether the driver refuses launches above the kernel's
  // CL_KERNEL_WORK_GROUP_SIZE. NVIDIA's does not: Rodinia's particlefilter
  // launches 512-item groups of a kernel it reports 256 for, natively, with
  // the right output; its limit is the device's.
  bool kernel_limit_enforced = true;
};

class Tracer;

struct Runtime {
  Controls controls;
  bool splitting = false;
  std::string why_not_splitting;
  std::vector<Device> devices;
  std::vector<cl_platform_id> platforms;  // one slot per platform holding chosen devices
  // Internal context per slot, made at the app's first context creation
  // (attach_contexts): a slot whose devices are exactly those of the app's
  // context shares it (no second context of the same driver: ~100 ms on
  // NVIDIA, and the app's built programs serve whole launches as they are).
  // Only the slots holding a device of the app's context open with it; the
  // others (the GPUs the app's context leaves out, other platforms) open on
  // a thread of their own, so that the app never waits for their drivers
  // (a context on another H100 costs ~0.1-0.3 s): until then launches run
  // without them (device_open). Each of a platform's GPUs outside the app's
  // context gets a slot of its own for that (split_app_slot), so that each
  // joins as soon as it is open (Scheduler::set_ready).
  std::vector<cl_context> contexts;
  // Whose platform allocates the pinned staging memory (pinned_staging.h); -1: none.
  int pinning_device = -1;
  std::unique_ptr<sched::Scheduler> scheduler;
  // The share of the run the scheduler may spend exploring
  // (LIBSPLIT_EXPLORE_BUDGET): another platform's build is paid from it.
  double explore_budget = 0;
  std::mutex exec_mutex;  // serializes command execution across app queues
  std::mutex attach_mutex;
  bool attached = false;
  std::atomic<bool> others_open{false};
  // The app is ending: the background opening stops before its next slot.
  std::atomic<bool> closing{false};
  std::mutex open_mutex;
  std::condition_variable open_cv;
  cl_int attach_error = CL_SUCCESS;
  std::unique_ptr<Tracer> tracer;
  uint64_t launches = 0;
  // When the app's first context was attached (the openings start then) and
  // its first and last launches were enqueued (under exec_mutex): the span
  // the scheduler's verdict on the openings weighs (Scheduler::set_launch_span).
  // An app that enqueues far ahead of its device ends the span early (up to
  // the 64 split launches kept unread): later groups then look less useful,
  // the cautious side.
  cl_ulong attached_ns = 0, first_launch_ns = 0, last_launch_ns = 0;

  int device_index(cl_device_id id) const;
  // Called with each context the app creates (`app_real`: the native one,
  // `adoptable`: no property but the platform, no error callback). The first
  // call makes the internal contexts and queues; CL_SUCCESS or the error of
  // the creation that failed.
  // app_open_ns: how long the driver took to create the app's context (the
  // cost of opening a device, for Scheduler::set_opening_cost).
  // before_join(slot): what the background opener does once a later slot's
  // context and queues are made, before its devices join the launches.
  cl_int attach_contexts(cl_context app_real, bool adoptable, cl_ulong app_open_ns,
                         const std::function<void(unsigned)>& before_join = {});
  // Whether runtime device d's context and queue are open (never waits).
  bool device_open(unsigned d) const;
  bool device_slot_open(unsigned slot) const;
  // Waits until every slot's context is open (or failed to open).
  void wait_open();
  // At the app's end: stops the background opening (what is being opened
  // is finished first) and waits for it.
  void stop_opening();
  // Which devices outside the app's context may open (they cost the app:
  // on 4 H100 each opening slows the app's own driver calls while it runs,
  // 130-200 ms, and adds ~200 ms to the process's exit): 0 none yet, n the
  // first n slots, sched::kAllGroups all, as Scheduler::devices_wanted says
  // before each launch that could split.
  std::atomic<unsigned> devices_wanted{0};
  // Odd while the background thread opens a slot. On 4 H100 an opening
  // stalls the app's driver calls: a split launch near one was judged by
  // that stall and given up (split_outcome.h: beside_opening).
  std::atomic<uint64_t> opening_epoch{0};
  // The slot the background thread is opening now (-1: none). A launch that
  // would use its GPU starts the program's build there to begin the moment
  // it opens (lazy_slots.h: build_once_open): started by the first launch
  // after the opening instead, the build ran that launch and the next one
  // whole (syrk on 2 H200: one 14 ms launch on one GPU instead of two).
  std::atomic<int> opening_slot{-1};
  // Waits until `slot` is open (true), or until it will not open soon: the
  // background thread is no longer opening it, the app is closing, or
  // give_up() (asked every 5 ms) says so (false).
  bool wait_slot_open(unsigned slot, const std::function<bool()>& give_up);
  void want_devices(unsigned level);
  // The devices the scheduler was told it may use (Scheduler::set_ready,
  // launch.cpp): each once open (a GPU: once the launch's program is built
  // there too); all_ready_told once every slot's opening has ended.
  std::vector<bool> ready_told;  // under exec_mutex
  std::atomic<bool> all_ready_told{false};
  // The internal context of `slot`, waiting for it to open if need be.
  cl_context context(unsigned slot);
  // By slot: its context and queues are open (those holding a device of the
  // app's context with it, the others each as soon as it opens).
  unsigned slot_count = 0;
  std::unique_ptr<std::atomic<bool>[]> slot_opened;
  // Minimum/maximum over the set of the sizing limits apps query.
  size_t min_max_work_group_size() const;
};

// Initialized on first use (reads the environment, enumerates devices).
Runtime& runtime();
// The runtime if the app used OpenCL already, else null (creates nothing).
Runtime* runtime_if_started();

// Whether the shim splits (else every wrapper forwards).
inline bool splitting() {
  static const bool s = runtime().splitting;
  return s;
}

// A profiling queue of libsplit's own on runtime device d (the 1.x call on
// OpenCL 1.x devices).
cl_command_queue create_profiling_queue(const Device& d, cl_context context, cl_int* err);

// stderr line when LIBSPLIT_LOG >= level.
void log_line(int level, const std::string& text);
// Nanoseconds this thread spent writing log lines (LIBSPLIT_LOG=3's host
// times tell them apart from what a launch costs without the log).
cl_ulong& log_write_ns();

// Whether LIBSPLIT_INJECT_FAULTS lists `fault` (tests simulating drivers).
bool fault_injected(std::string_view fault);
// The entry `fault` (empty) or `fault=VALUE` (VALUE) of the comma list
// `list`; nullopt when absent.
std::optional<std::string_view> injected_fault(std::string_view list, std::string_view fault);

}  // namespace libsplit
