#include "runtime.h"

#include "clock.h"
#include "real_api.h"
#include "trace.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <thread>

namespace libsplit {

namespace {

const char* getenv_wrapper(const char* name) { return std::getenv(name); }

template <class T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  real().clGetDeviceInfo(d, what, sizeof v, &v, nullptr);
  return v;
}

// A selected device as the runtime keeps it: its platform slot (a new
// platform gets the next one) and the limits launches are checked against.
Device describe_device(Runtime& rt, const DiscoveredDevice& found) {
  Device d;
  d.platform = found.platform;
  d.id = found.id;
  d.name = found.desc.name;
  auto slot = std::find(rt.platforms.begin(), rt.platforms.end(), d.platform);
  d.slot = static_cast<unsigned>(slot - rt.platforms.begin());
  if (slot == rt.platforms.end()) rt.platforms.push_back(d.platform);
  d.max_work_group_size = device_value<size_t>(d.id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  real().clGetDeviceInfo(d.id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof d.max_work_item_sizes,
                         d.max_work_item_sizes, nullptr);
  d.local_mem = device_value<cl_ulong>(d.id, CL_DEVICE_LOCAL_MEM_SIZE);
  d.max_alloc = device_value<cl_ulong>(d.id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  d.global_mem = device_value<cl_ulong>(d.id, CL_DEVICE_GLOBAL_MEM_SIZE);
  d.max_constant = device_value<cl_ulong>(d.id, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
  d.base_addr_align = device_value<cl_uint>(d.id, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
  unsigned major = 0, minor = 0;
  if (sscanf(found.version.c_str(), "OpenCL %u.%u", &major, &minor) == 2) d.cl_version = 10 * major + minor;
  d.place = found.place;
  // A device with a lower work-group limit (tests: launches the app's
  // device takes must not be refused because another device cannot).
  const std::string limit_fault = "max_work_group_size@" + std::to_string(rt.devices.size());
  if (auto v = injected_fault(rt.controls.inject_faults, limit_fault); v && !v->empty()) {
    const size_t limit = std::strtoull(std::string(*v).c_str(), nullptr, 10);
    if (limit) d.max_work_group_size = std::min(d.max_work_group_size, limit);
  }
  return d;
}

// The devices as the scheduler sees them; devices with a twin (same name,
// compute units and clock) marked.
std::vector<sched::DeviceInfo> scheduler_infos(Runtime& rt) {
  std::vector<sched::DeviceInfo> infos;
  for (auto& d : rt.devices) {
    sched::DeviceInfo info;
    info.name = d.name;
    const cl_device_type type = device_value<cl_device_type>(d.id, CL_DEVICE_TYPE);
    info.is_gpu = d.is_gpu = type & CL_DEVICE_TYPE_GPU;
    char vendor[128] = {};
    real().clGetPlatformInfo(d.platform, CL_PLATFORM_VENDOR, sizeof vendor - 1, vendor, nullptr);
    d.kernel_limit_enforced = std::string_view(vendor).find("NVIDIA") == std::string_view::npos;
    info.on_host_cores = d.place == DevicePlace::host_cores;
    info.remote = d.place == DevicePlace::remote;
    // Not log_line: the runtime is still being made (runtime() would recurse).
    if (rt.controls.log >= 2)
      fprintf(stderr, "libsplit: device %zu '%s': %s (%s)\n", infos.size(), d.name.c_str(),
              place_name(d.place),
              d.place == DevicePlace::host_cores ? "shares the host's cores" : "separate hardware");
    info.compute_units = device_value<cl_uint>(d.id, CL_DEVICE_MAX_COMPUTE_UNITS);
    info.clock_mhz = device_value<cl_uint>(d.id, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    infos.push_back(info);
  }
  for (size_t i = 0; i < infos.size(); ++i)
    for (size_t j = 0; j < infos.size(); ++j)
      if (i != j && infos[i].name == infos[j].name && infos[i].compute_units == infos[j].compute_units &&
          infos[i].clock_mhz == infos[j].clock_mhz)
        rt.devices[i].has_twin = true;
  return infos;
}

// The scheduler (the default one when the named one cannot be made); false,
// with why_not_splitting set, when there is none or it would only ever use
// the app's device.
// The process's command line, arguments joined by spaces: what identifies a
// run of "the same app" for the warm start's per-command memory.
std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\0') text.pop_back();
  std::replace(text.begin(), text.end(), '\0', ' ');
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

bool make_runtime_scheduler(Runtime& rt, const std::vector<sched::DeviceInfo>& infos) {
  std::string error;
  rt.explore_budget = sched::SchedulerOptions::from_environment().explore_budget;
  rt.scheduler = sched::make_scheduler(rt.controls.scheduler, infos, &error);
  if (!rt.scheduler) {
    fprintf(stderr, "libsplit: %s; using the default scheduler\n", error.c_str());
    rt.scheduler = sched::make_scheduler("", infos, &error);
  }
  if (!rt.scheduler) {
    rt.why_not_splitting = "no scheduler";
    return false;
  }
  if (!rt.scheduler->may_use_several_devices()) {
    rt.why_not_splitting =
        "every device runs on the host's cores, which they share: the default scheduler would only "
        "ever use the app's device (LIBSPLIT_HOST_DEVICES=all counts them as separate hardware)";
    // Said where asked (LIBSPLIT_LOG): more than one device was chosen, so
    // the user may expect splits.
    if (rt.controls.log >= 1)
      fprintf(stderr, "libsplit: not splitting (every call forwarded): %s\n", rt.why_not_splitting.c_str());
    return false;
  }
  rt.scheduler->set_app(command_line());
  return true;
}

Runtime* create_runtime() {
  auto* rt = new Runtime;  // never destroyed: worker threads may outlive static destructors
  std::string warnings;
  rt->controls = read_controls(getenv_wrapper, &warnings);
  if (rt->controls.host_devices != "one" && rt->controls.host_devices != "all")
    warnings += "libsplit: ignoring LIBSPLIT_HOST_DEVICES='" + rt->controls.host_devices +
                "' (expected one or all)\n";
  if (!warnings.empty()) fputs(warnings.c_str(), stderr);
  if (rt->controls.disable) {
    rt->why_not_splitting = "LIBSPLIT_DISABLE=1";
    return rt;
  }
  const RealApi& api = real();
  if (!api.clGetPlatformIDs) {
    rt->why_not_splitting = "no OpenCL loader found";
    return rt;
  }
  auto found = discover_devices({api.clGetPlatformIDs, api.clGetDeviceIDs, api.clGetDeviceInfo});
  std::vector<DeviceDesc> descs;
  for (auto& f : found) descs.push_back(f.desc);
  DeviceSelection sel = select_devices(rt->controls.devices, descs);
  if (!sel.error.empty()) {
    fprintf(stderr, "libsplit: %s; not splitting\n", sel.error.c_str());
    rt->why_not_splitting = sel.error;
    return rt;
  }
  if (sel.chosen.size() < 2) {
    rt->why_not_splitting = "fewer than 2 devices selected";
    return rt;
  }
  for (unsigned i : sel.chosen) rt->devices.push_back(describe_device(*rt, found[i]));
  const std::vector<sched::DeviceInfo> infos = scheduler_infos(*rt);
  if (!make_runtime_scheduler(*rt, infos)) return rt;
  rt->tracer = std::make_unique<Tracer>(rt->controls.trace, rt->controls.timeline);
  rt->splitting = true;
  return rt;
}

// Whose context allocates the pinned staging memory of moves between
// devices (data/pinned_staging.h): the first GPU (LIBSPLIT_PINNED=auto), the
// first device (1), none (0).
int choose_pinning_device(const Runtime& rt) {
  const std::string& mode = rt.controls.pinned;
  if (mode == "0") return -1;
  if (mode != "1" && mode != "auto")
    fprintf(stderr, "libsplit: LIBSPLIT_PINNED='%s' is not auto, 0 or 1; using auto\n", mode.c_str());
  for (unsigned d = 0; d < rt.devices.size(); ++d)
    if (rt.devices[d].is_gpu) return int(d);
  return mode == "1" && !rt.devices.empty() ? 0 : -1;
}

// The app's context holds some of a platform's GPUs but not all: those get
// a slot of their own (sharing the app's context), and so does each of the
// platform's other chosen GPUs, opened in the background one by one.
// PoCL-Remote devices are devices of the client's PoCL platform, beside its
// local CPU devices: one context over all of them can do only what every
// device can (the app's fine-grained SVM on a local CPU device failed there,
// test remote_apps). So a platform's remote devices get a slot of their own,
// all together (LIBSPLIT_DEVICE_COPIES=1 moves between them by copy commands).
void separate_remote_devices(Runtime& rt) {
  const unsigned slots = static_cast<unsigned>(rt.platforms.size());
  for (unsigned s = 0; s < slots; ++s) {
    bool local = false, remote = false;
    for (const Device& d : rt.devices)
      if (d.slot == s) (d.place == DevicePlace::remote ? remote : local) = true;
    if (!local || !remote) continue;
    const unsigned remote_slot = static_cast<unsigned>(rt.platforms.size());
    rt.platforms.push_back(rt.platforms[s]);
    for (Device& d : rt.devices)
      if (d.slot == s && d.place == DevicePlace::remote) d.slot = remote_slot;
    log_line(2, "platform slot " + std::to_string(remote_slot) + ": the remote devices of slot " +
                    std::to_string(s) + ", apart from its local ones");
  }
}

void split_app_slot(Runtime& rt, const std::vector<cl_device_id>& app_devices) {
  if (app_devices.empty()) return;
  const int first = rt.device_index(app_devices.front());
  if (first < 0) return;
  const unsigned s = rt.devices[unsigned(first)].slot;
  bool all_gpus = true, all_in_slot = true, others = false;
  for (const Device& d : rt.devices) {
    if (d.slot != s) continue;
    all_gpus = all_gpus && d.is_gpu;
    others = others || !std::binary_search(app_devices.begin(), app_devices.end(), d.id);
  }
  for (cl_device_id id : app_devices) {
    const int i = rt.device_index(id);
    all_in_slot = all_in_slot && i >= 0 && rt.devices[unsigned(i)].slot == s;
  }
  if (!all_gpus || !all_in_slot || !others) return;
  const unsigned app_slot = static_cast<unsigned>(rt.platforms.size());
  rt.platforms.push_back(rt.platforms[s]);
  for (Device& d : rt.devices)
    if (d.slot == s && std::binary_search(app_devices.begin(), app_devices.end(), d.id)) d.slot = app_slot;
  log_line(2, "platform slot " + std::to_string(app_slot) + ": the GPUs of the app's context, apart from the "
                                                           "platform's others (slot " + std::to_string(s) + ")");
  // Each other GPU in a context of its own: the driver opens GPUs one at a
  // time (4 H100: 140-215 ms each, one after the other), so each joins the
  // splits as soon as it is open, not once the last one is.
  bool kept_one = false;
  for (Device& d : rt.devices) {
    if (d.slot != s) continue;
    if (!kept_one) {
      kept_one = true;
      continue;
    }
    d.slot = static_cast<unsigned>(rt.platforms.size());
    rt.platforms.push_back(rt.platforms[s]);
    log_line(2, "a context of its own for " + d.name + " (slot " + std::to_string(d.slot) + ")");
  }
}

// A first small write on a queue libsplit opened: a driver sets a device up
// lazily at its first command (on 4 H100 the first move to a GPU opened in
// the background took 29 ms of the app's time); done here, off its path.
void warm_up_queue(cl_context context, cl_command_queue queue) {
  const RealApi& api = real();
  cl_int err = CL_SUCCESS;
  unsigned char bytes[256] = {};
  cl_mem m = api.clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof bytes, nullptr, &err);
  if (!m) return;
  api.clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, sizeof bytes, bytes, 0, nullptr, nullptr);
  api.clReleaseMemObject(m);
}

// Opens platform slot s: its context (the app's where the devices are the
// same) and its devices' queues.
cl_int open_platform_slot(Runtime& rt, unsigned s, cl_context app_real, bool adoptable,
                          const std::vector<cl_device_id>& app_devices) {
  const RealApi& api = real();
  std::vector<cl_device_id> ids;
  for (auto& d : rt.devices)
    if (d.slot == s) ids.push_back(d.id);
  std::vector<cl_device_id> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  if (adoptable && sorted == app_devices) {
    api.clRetainContext(app_real);
    rt.contexts[s] = app_real;
    log_line(2, "internal context of platform slot " + std::to_string(s) + ": the app's");
  } else {
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     reinterpret_cast<cl_context_properties>(rt.platforms[s]), 0};
    cl_int err = CL_SUCCESS;
    cl_context c = api.clCreateContext(props, static_cast<cl_uint>(ids.size()), ids.data(), nullptr, nullptr, &err);
    if (!c || err != CL_SUCCESS) {
      fprintf(stderr, "libsplit: cannot create an internal context on %s (%d)\n", rt.devices[0].name.c_str(), err);
      return err != CL_SUCCESS ? err : CL_OUT_OF_RESOURCES;
    }
    rt.contexts[s] = c;
  }
  for (auto& d : rt.devices) {
    if (d.slot != s) continue;
    cl_int err = CL_SUCCESS;
    d.queue = create_profiling_queue(d, rt.contexts[s], &err);
    if (!d.queue || err != CL_SUCCESS) {
      fprintf(stderr, "libsplit: cannot create a queue on %s (%d)\n", d.name.c_str(), err);
      return err != CL_SUCCESS ? err : CL_OUT_OF_RESOURCES;
    }
    if (rt.contexts[s] != app_real) warm_up_queue(rt.contexts[s], d.queue);
  }
  return CL_SUCCESS;
}

bool slot_has_gpu(const Runtime& rt, unsigned s) {
  return std::any_of(rt.devices.begin(), rt.devices.end(), [s](const Device& d) { return d.slot == s && d.is_gpu; });
}

// What opening each later slot costs, until it opens: a GPU as long as the
// app's context took, a CPU platform nothing (PoCL opened one in 1 ms on
// the GPU node). Measured as each opens (open_in_background).
std::vector<double> estimated_openings(const Runtime& rt, const std::vector<unsigned>& later, cl_ulong app_open_ns) {
  std::vector<double> openings;
  for (unsigned s : later) openings.push_back(slot_has_gpu(rt, s) ? double(app_open_ns) * 1e-9 : 0.0);
  return openings;
}

// What the command's last run that opened devices asks for at the start.
void log_wanted_at_start(unsigned wanted) {
  if (wanted == sched::kAllGroups)
    log_line(2, "the last run of this command that opened devices asks for every one now (its splits paid, "
                "or they opened too late to tell)");
  else if (wanted > 0)
    log_line(2, "the last run of this command that opened devices asks for the first " + std::to_string(wanted) +
                    " of them now (those that paid)");
}

// Which of the later slots each device opens with (-1: with the app's).
std::vector<int> opening_groups(const Runtime& rt, const std::vector<unsigned>& later) {
  std::vector<int> group_of_device(rt.devices.size(), -1);
  for (size_t i = 0; i < later.size(); ++i)
    for (size_t d = 0; d < rt.devices.size(); ++d)
      if (rt.devices[d].slot == later[i]) group_of_device[d] = int(i);
  return group_of_device;
}

// The slots outside the app's context, opened on a thread of their own.
void open_in_background(Runtime& rt, const std::vector<unsigned>& later,
                        const std::function<cl_int(unsigned)>& open_slot,
                        const std::function<void(unsigned)>& before_join, std::vector<double> openings) {
  std::thread([&rt, later, open_slot, before_join, openings]() mutable {
    const cl_ulong t1 = now_ns();
    if (fault_injected("slow_open")) {
      std::unique_lock lock(rt.open_mutex);
      rt.open_cv.wait_for(lock, std::chrono::seconds(30), [&rt] { return rt.closing.load(); });
    }
    bool ok = true;
    for (size_t i = 0; i < later.size(); ++i) {
      const unsigned s = later[i];
      // The first other slot opens once launches have run long enough to pay
      // for it, the rest once a split over those open has won (or a stored
      // split says it will), as many as paid in the command's last run:
      // Scheduler::devices_wanted.
      const unsigned needed = unsigned(i) + 1;
      {
        std::unique_lock lock(rt.open_mutex);
        rt.open_cv.wait(lock, [&rt, needed] { return rt.closing.load() || rt.devices_wanted.load() >= needed; });
      }
      const cl_ulong t = now_ns();
      rt.opening_epoch.fetch_add(1);
      rt.opening_slot = int(s);
      const cl_int opened = rt.closing ? CL_INVALID_CONTEXT : open_slot(s);
      if (opened == CL_SUCCESS && before_join) before_join(s);
      rt.opening_epoch.fetch_add(1);
      if (opened == CL_SUCCESS) {
        rt.slot_opened[s].store(true, std::memory_order_release);
        openings[i] = (now_ns() - t) * 1e-9;
        rt.scheduler->set_openings(openings);
      } else {
        ok = false;
      }
      {
        std::lock_guard lock(rt.open_mutex);
        rt.opening_slot = -1;
      }
      rt.open_cv.notify_all();  // builds waiting for this slot (wait_slot_open)
      if (rt.controls.log >= 2) {
        std::string names;
        for (unsigned d = 0; d < rt.devices.size(); ++d)
          if (rt.devices[d].slot == s) names += (names.empty() ? "dev" : ", dev") + std::to_string(d);
        log_line(2, names + (rt.slot_opened[s] ? " opened in " : " not opened after ") +
                        std::to_string((now_ns() - t) / 1000000) + " ms, " +
                        std::to_string((now_ns() - t1) / 1000000) + " ms after the app's context");
      }
    }
    // A slot that did not open leaves its devices out of every launch.
    if (ok)
      log_line(2, "the other devices opened in the background in " + std::to_string((now_ns() - t1) / 1000000) + " ms");
    else
      log_line(rt.closing ? 2 : 1, std::string("devices outside the app's context not opened") +
                                    (rt.closing ? " (the app ended first)" : ": they are not used"));
    {
      std::lock_guard lock(rt.open_mutex);
      rt.others_open = true;
    }
    rt.open_cv.notify_all();
  }).detach();
}

}  // namespace

cl_int Runtime::attach_contexts(cl_context app_real, bool adoptable, cl_ulong app_open_ns,
                                const std::function<void(unsigned)>& before_join) {
  std::lock_guard lock(attach_mutex);
  if (attached) return attach_error;
  attached = true;
  const cl_ulong t0 = attached_ns = now_ns();
  const RealApi& api = real();
  std::vector<cl_device_id> app_devices;
  cl_uint n = 0;
  if (api.clGetContextInfo(app_real, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, nullptr) == CL_SUCCESS) {
    app_devices.resize(n);
    api.clGetContextInfo(app_real, CL_CONTEXT_DEVICES, n * sizeof(cl_device_id), app_devices.data(), nullptr);
    std::sort(app_devices.begin(), app_devices.end());
  }
  separate_remote_devices(*this);
  if (adoptable) split_app_slot(*this, app_devices);
  contexts.assign(platforms.size(), nullptr);
  slot_count = static_cast<unsigned>(platforms.size());
  slot_opened = std::make_unique<std::atomic<bool>[]>(slot_count);
  // The slots holding a device of the app's context open now, the others later.
  std::vector<char> app_slot(slot_count, 0);
  for (const Device& d : devices)
    if (std::binary_search(app_devices.begin(), app_devices.end(), d.id)) app_slot[d.slot] = 1;
  auto open_slot = [this, app_real, adoptable, app_devices](unsigned s) -> cl_int {
    return open_platform_slot(*this, s, app_real, adoptable, app_devices);
  };
  // Nothing opens after a failure: waiters (exit) are released at once.
  auto fail = [this](cl_int err) {
    others_open = true;
    return attach_error = err;
  };
  std::vector<unsigned> later;
  for (unsigned s = 0; s < platforms.size(); ++s) {
    if (!app_slot[s]) {
      later.push_back(s);
      continue;
    }
    if (cl_int err = open_slot(s)) return fail(err);
    slot_opened[s].store(true, std::memory_order_release);
  }
  pinning_device = choose_pinning_device(*this);
  if (pinning_device >= 0)
    log_line(2, "moves between devices: staged in pinned memory of " + devices[pinning_device].name);
  log_line(2, "the app's devices opened in " + std::to_string((now_ns() - t0) / 1000) + " us");
  scheduler->set_opening_cost(double(app_open_ns) * 1e-9);
  log_line(2, "the app's context took " + std::to_string(app_open_ns / 1000000) +
                  " ms to open: the cost of opening one more device");
  if (later.empty() || controls.sync_prepare) {
    for (unsigned s : later) {
      if (cl_int err = open_slot(s)) return fail(err);
      slot_opened[s].store(true, std::memory_order_release);
    }
    others_open = true;
    return CL_SUCCESS;
  }
  // GPUs first: they are what a split wants (a CPU platform opens in ms).
  std::stable_sort(later.begin(), later.end(), [this](unsigned a, unsigned b) {
    return slot_has_gpu(*this, a) && !slot_has_gpu(*this, b);
  });
  // On demand, the scheduler says what it wants from the start: every device
  // for schedulers with fixed devices, and for the default one where an
  // earlier run of this command split with gain.
  if (controls.open_devices == "start") {
    devices_wanted = sched::kAllGroups;
  } else {
    if (controls.open_devices != "demand")
      fprintf(stderr, "libsplit: LIBSPLIT_OPEN_DEVICES='%s' is not demand or start; using demand\n",
              controls.open_devices.c_str());
    devices_wanted = scheduler->devices_wanted();
    if (scheduler->plans_by_readiness()) log_wanted_at_start(devices_wanted);
  }
  scheduler->set_opening_groups(opening_groups(*this, later));
  std::vector<double> openings = estimated_openings(*this, later, app_open_ns);
  scheduler->set_openings(openings);
  open_in_background(*this, later, open_slot, before_join, std::move(openings));
  return CL_SUCCESS;
}

bool Runtime::device_open(unsigned d) const { return device_slot_open(devices[d].slot); }

void Runtime::want_devices(unsigned level) {
  if (devices_wanted.load(std::memory_order_relaxed) >= level) return;
  {
    std::lock_guard lock(open_mutex);
    if (devices_wanted >= level) return;
    devices_wanted = level;
  }
  open_cv.notify_all();
}

void Runtime::wait_open() {
  want_devices(sched::kAllGroups);  // a caller that waits needs them (else they might never open)
  std::unique_lock lock(open_mutex);
  open_cv.wait(lock, [this] { return others_open.load(); });
}

void Runtime::stop_opening() {
  {
    std::lock_guard lock(open_mutex);
    closing = true;
  }
  open_cv.notify_all();
  wait_open();
}

bool Runtime::wait_slot_open(unsigned slot, const std::function<bool()>& give_up) {
  std::unique_lock lock(open_mutex);
  while (!device_slot_open(slot)) {
    if (others_open || closing || opening_slot != int(slot) || give_up()) return device_slot_open(slot);
    open_cv.wait_for(lock, std::chrono::milliseconds(5));
  }
  return true;
}

cl_context Runtime::context(unsigned slot) {
  if (!device_slot_open(slot)) wait_open();
  return contexts[slot];
}

bool Runtime::device_slot_open(unsigned slot) const {
  return slot < slot_count && slot_opened[slot].load(std::memory_order_acquire);
}

namespace {
std::atomic<Runtime*> g_started{nullptr};
}  // namespace

Runtime& runtime() {
  static Runtime* rt = [] {
    const cl_ulong t0 = now_ns();
    Runtime* created = create_runtime();
    if (created->controls.log >= 1 && created->splitting)
      fprintf(stderr, "libsplit: %zu devices ready in %llu ms\n", created->devices.size(),
              static_cast<unsigned long long>((now_ns() - t0) / 1000000));

    g_started = created;
    return created;
  }();
  return *rt;
}

Runtime* runtime_if_started() { return g_started.load(); }

int Runtime::device_index(cl_device_id id) const {
  for (unsigned i = 0; i < devices.size(); ++i)
    if (devices[i].id == id) return static_cast<int>(i);
  return -1;
}

size_t Runtime::min_max_work_group_size() const {
  size_t m = SIZE_MAX;
  for (auto& d : devices) m = std::min(m, d.max_work_group_size);
  return m;
}

cl_command_queue create_profiling_queue(const Device& d, cl_context context, cl_int* err) {
  if (d.cl_version < 20) return real().clCreateCommandQueue(context, d.id, CL_QUEUE_PROFILING_ENABLE, err);
  cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  return real().clCreateCommandQueueWithProperties(context, d.id, qp, err);
}

void log_line(int level, const std::string& text) {
  if (runtime().controls.log < level) return;
  const cl_ulong t0 = now_ns();
  fprintf(stderr, "libsplit: %s\n", text.c_str());
  log_write_ns() += now_ns() - t0;
}

cl_ulong& log_write_ns() {
  thread_local cl_ulong spent = 0;
  return spent;
}

std::optional<std::string_view> injected_fault(std::string_view list, std::string_view fault) {
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view entry = list.substr(0, comma);
    if (entry == fault) return std::string_view();
    if (entry.size() > fault.size() && entry.substr(0, fault.size()) == fault && entry[fault.size()] == '=')
      return entry.substr(fault.size() + 1);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return std::nullopt;
}

bool fault_injected(std::string_view fault) {
  return injected_fault(runtime().controls.inject_faults, fault).has_value();
}

}  // namespace libsplit
