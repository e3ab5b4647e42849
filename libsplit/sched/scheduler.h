// The scheduler interface between the runtime and the granularity solvers.
// Pure C++: no OpenCL type appears here, so every scheduler can be tested
// against a simulated device model.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <string_view>
#include <vector>

namespace libsplit::sched {

// Scheduler::devices_wanted: every group of devices outside the app's context.
inline constexpr unsigned kAllGroups = ~0u;

// What the runtime knows of a device when it builds a scheduler.
struct DeviceInfo {
  std::string name;
  bool is_gpu = false;
  unsigned compute_units = 1;
  unsigned clock_mhz = 1;
  // Runs on the host's own cores (CL_DEVICE_TYPE_CPU: PoCL's pthread and
  // basic devices, a vendor's CPU runtime; not a PoCL-Remote device, which
  // runs on its server: runtime/device_place.h): all such devices of a node
  // share the same cores.
  bool on_host_cores = false;
  // Behind PoCL-Remote (runtime/device_place.h): its name is the server's
  // device's, yet the network sits between it and the host, so it is never
  // taken for a twin of a local device (nor a local one for its twin).
  bool remote = false;
};

// Identity of a launch shape: measurements are only comparable between
// launches of the same kernel over the same NDRange.
struct LaunchKey {
  std::string kernel;
  unsigned dims = 1;
  uint64_t global[3] = {1, 1, 1};
  uint64_t local[3] = {1, 1, 1};
  unsigned split_dim = 0;
  // The runtime device the app's queue targets: what the app alone would
  // have run the launch on (the no-regret baseline).
  unsigned home = 0;
  // Which buffers the launch's arguments are (a hash; 0 unknown). Not part
  // of the key's identity: launches of one key in several roles (3mm's three
  // products) are judged over their cycle (NoRegretPolicy::kMaxRoles).
  uint64_t role = 0;
  bool operator==(const LaunchKey&) const = default;
};

// Orders launch shapes without their home device (the fields of
// describe(key)): the key of the schedulers whose state is per shape, for
// every home. A comparison, not a string built at every launch.
struct ShapeLess {
  bool operator()(const LaunchKey& a, const LaunchKey& b) const {
    auto fields = [](const LaunchKey& k) {
      return std::tie(k.kernel, k.dims, k.global[0], k.global[1], k.global[2], k.local[0], k.local[1],
                      k.local[2], k.split_dim);
    };
    return fields(a) < fields(b);
  }
};

// A contiguous run of work-groups (along the split dimension) for one device.
struct Chunk {
  unsigned device = 0;
  uint64_t first_group = 0;
  uint64_t group_count = 0;
};

// What one chunk cost, measured by the runtime (device profiling times).
struct ChunkTiming {
  Chunk chunk;
  double seconds = 0;            // kernel execution time of the chunk
  double transfer_seconds = 0;   // data movement the chunk needed
  // Seconds the chunk's device sat idle before it, since the app's previous
  // launch ended there (< 0: unknown, e.g. that launch did not run there).
  // An app that waits for each launch leaves the device idle for the host's
  // round trip, which a split lengthens: its enqueue and the waits on
  // several devices.
  double idle_before = -1;
};

// The decision for one launch. Static schedulers hand every device at most
// one chunk, contiguous and ordered by device; chunk schedulers (dynamic,
// hguided, autotune) hand out packages as devices become idle. next() is
// called from one thread per device and must be thread-safe; nullopt means
// that device is done for this launch. Over a launch the chunks returned
// cover [0, numgroups) exactly once.
class LaunchPlan {
 public:
  virtual ~LaunchPlan() = default;
  virtual std::optional<Chunk> next(unsigned device) = 0;
  // What the solver expects each device's total time to be (seconds; 0 when
  // it has no prediction). Goes into the trace.
  virtual double predicted_seconds(unsigned /*device*/) const { return 0; }
  // Set when the scheduler decided NOT to split this launch: the one chunk
  // covers [0, numgroups) on this device, and the runtime may run the
  // original kernel whole there (no sub-buffers, no region transfers).
  virtual std::optional<unsigned> whole_device() const { return std::nullopt; }
  // Speculative chunks (issue "never slower"): each runs on its device in
  // addition to the real work, on private scratch copies of the buffers it
  // writes (never visible to the app); the launch does not wait for them.
  // Their timings come back through Scheduler::report_probe, possibly after
  // later launches were planned. At most one per device, never on a device
  // that also has real work in this plan.
  virtual std::vector<Chunk> probes() const { return {}; }
  // True when the scheduler would have probed at this launch but its
  // exploration budget (staging cost of probes on the app's critical path)
  // is spent; for the runtime's log/trace ("exploration budget spent").
  virtual bool exploration_budget_spent() const { return false; }
  // Seconds of the app's critical path the runtime may spend copying the
  // inputs of this plan's probes. The scheduler cannot know a probe's input
  // bytes (one work-group of a column-wise kernel may read a whole matrix),
  // the runtime can before copying: a probe whose estimated staging exceeds
  // this is not run and is reported as one that could not run.
  virtual double probe_staging_room() const { return INFINITY; }
  // False when the scheduler does not need this launch's timing: the
  // runtime then runs it without an event (report() is not called). On the
  // GPU node an event per whole launch, polled and read, cost ~5-10 us.
  virtual bool wants_report() const { return true; }
  // Seconds of one-off data movement this split may cost and still pay it
  // back with its gain over whole (the scheduler knows times, the runtime
  // bytes): the runtime runs a split whose staging it estimates above this
  // whole on the home device instead and calls Scheduler::split_declined.
  virtual double staging_allowance() const { return INFINITY; }
  // Why a plan that could split runs whole, when the scheduler gave a split
  // up in this run ("" otherwise): for LIBSPLIT_LOG's launch line.
  virtual std::string why_whole() const { return {}; }
  // A whole plan on the app's device may ask for its launch in two halves
  // there, one after the other (groups [0, n/2) then the rest, the
  // partition-ready kernel): report() then gets the two halves' timings. A
  // kernel whose halves take about as long as all of it (one wave: the
  // device was not full) cannot gain from any split, and opening a device
  // for it only costs. The runtime may run it whole instead (report() then
  // gets one timing).
  virtual bool halves_on_home() const { return false; }
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string_view name() const = 0;
  virtual std::unique_ptr<LaunchPlan> plan(const LaunchKey& key, uint64_t numgroups) = 0;
  // Called once per launch, after every chunk of its plan completed.
  virtual void report(const LaunchKey& key, const std::vector<ChunkTiming>& timings) = 0;
  // A probe's outcome, exactly once per probe handed out: `seconds` = its
  // kernel time on its device (<= 0: it could not run there, e.g. the
  // device failed or lacked memory), `transfer_seconds` = the time the
  // runtime spent staging its inputs on the app's critical path.
  virtual void report_probe(const LaunchKey& /*key*/, const ChunkTiming& /*timing*/) {}
  // The runtime ran the launch whole on home instead of the planned split:
  // its data movement would cost more than staging_allowance().
  virtual void split_declined(const LaunchKey& /*key*/) {}
  // Which devices launches may use now (ready[d]; every device until told
  // otherwise): a device still opening in the background is left out of new
  // splits, which use those that are open instead of waiting for all, and
  // are planned again as devices join. Schedulers that plan over every
  // device regardless (the forced ones) ignore it: the runtime then runs a
  // launch whole until its split's devices are ready.
  virtual void set_ready(const std::vector<bool>& /*ready*/) {}
  // Whether set_ready changes its plans (else the runtime need not work
  // out which devices are ready).
  virtual bool plans_by_readiness() const { return false; }
  // How many of the groups of devices outside the app's context (in the
  // order they open: set_opening_groups) are worth opening now: 0 none yet,
  // n the first n, kAllGroups every one (each opening costs the app:
  // Runtime::devices_wanted). Schedulers that plan over every device want
  // them all at once.
  virtual unsigned devices_wanted() const { return kAllGroups; }
  // Which of those groups each device opens with (-1: with the app's
  // context), told once at the app's first context; untold, device d of a
  // key whose home is h is group d - 1 when d > h, d when d < h.
  virtual void set_opening_groups(const std::vector<int>& /*group_of_device*/) {}
  // The measured cost of opening one device (the app's own context took
  // that long): a scheduler that opens devices on demand lets launches run
  // that long before it asks for one.
  virtual void set_opening_cost(double /*seconds*/) {}
  // What opening each group of devices outside the app's context costs, in
  // seconds: measured for a group that opened, estimated for the others.
  // Given at the app's first context and again as each group opens. A run
  // that opened devices weighs its splits' gain against their sum (end_run);
  // until then every device counts as one set_opening_cost.
  virtual void set_openings(const std::vector<double>& /*seconds*/) {}
  // The app's command line, before its first context: a scheduler that
  // remembers runs (warm start) may want every device at once where an
  // earlier run of the same command split with gain.
  virtual void set_app(const std::string& /*command_line*/) {}
  // When the app's launches ran: its first and its last, in seconds since
  // its first context (where the openings start). Told before end_run; a
  // run's verdict on its openings then counts each group's gain only on the
  // launches after it would join.
  virtual void set_launch_span(double /*first_seconds*/, double /*last_seconds*/) {}
  // The app's end (its last reports delivered): what the next run of the
  // same command should know is written now.
  virtual void end_run() {}
  // False when no launch can ever use more than the app's own device, with
  // whichever device the app picks: the runtime then forwards every call
  // (no libsplit object, no preparation, native speed).
  virtual bool may_use_several_devices() const { return true; }
  // True when the shares are fixed, the user's (uniform, static), not solved
  // from measurements: nothing may replace them (owner computes' joint
  // partition does not).
  virtual bool fixed_shares() const { return false; }
};

// Knobs of the schedulers. from_environment() reads the LIBSPLIT_* variables
// documented in libsplit/sched/README.md; tests and the simulator fill it by
// hand.
struct SchedulerOptions {
  // "1,3": fixed proportions for `static` (and nominal powers for hguided);
  // empty = from compute_units * clock_mhz, GPUs weighted.
  std::vector<double> proportions;
  // Split-vs-whole decision (OmpSs versioning idea): false = always split.
  bool allow_whole = true;
  // Warm start: directory of stored granularities; empty = no warm start.
  std::string warm_start_dir;
  unsigned dynamic_packages = 0;  // 0 = default (8 per device)
  double hguided_k = 2.0;         // HGuided k: smaller = faster decrease
  uint64_t hguided_min_groups = 1;
  // "auto": share of the key's measured run time that probe staging may
  // cost (LIBSPLIT_EXPLORE_BUDGET); 0 = no probes (home only, or split
  // evenly with devices identical to home).
  double explore_budget = 0.02;
  // "auto": devices on the host's cores count as one resource
  // (LIBSPLIT_HOST_DEVICES=one, the default): at most one of them takes
  // part in a launch. false (=all): each is its own hardware (tests of the
  // multi-device mechanics on one machine's CPU devices).
  bool host_devices_share_cores = true;
  static SchedulerOptions from_environment();
};

// Builds the scheduler named by LIBSPLIT_SCHEDULER ("uniform", "static",
// "fixedpoint", "broyden", "dynamic", "hguided", "autotune", "adaptive",
// "auto"; empty = the default, "auto": no regret against LaunchKey::home). Returns nullptr and fills *error for an unknown name.
std::unique_ptr<Scheduler> make_scheduler(std::string_view name,
                                          const std::vector<DeviceInfo>& devices,
                                          std::string* error = nullptr);
// Same, with explicit options (the overload above uses from_environment()).
std::unique_ptr<Scheduler> make_scheduler(std::string_view name,
                                          const std::vector<DeviceInfo>& devices,
                                          const SchedulerOptions& options,
                                          std::string* error = nullptr);

}  // namespace libsplit::sched
