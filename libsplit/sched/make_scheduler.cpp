#include <cstdlib>
#include <sstream>

#include "adaptive_scheduler.h"
#include "chunk_schedulers.h"
#include "no_regret_scheduler.h"
#include "rounding.h"
#include "scheduler.h"
#include "solvers.h"
#include "split_scheduler.h"
#include "warm_start.h"

namespace libsplit::sched {

namespace {

// The scheduler an empty name selects; README.md says why.
constexpr std::string_view kDefaultScheduler = "auto";

std::vector<double> parse_list(const char* text) {
  std::vector<double> values;
  if (!text) return values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    double value = std::strtod(item.c_str(), &end);
    if (end == item.c_str() || !(value >= 0)) return {};
    values.push_back(value);
  }
  return values;
}

template <typename T>
T env_number(const char* name, T fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  double value = std::strtod(text, &end);
  if (end == text || *end || !(value > 0)) return fallback;
  return T(value);
}

}  // namespace

SchedulerOptions SchedulerOptions::from_environment() {
  SchedulerOptions options;
  options.proportions = parse_list(std::getenv("LIBSPLIT_PROPORTIONS"));
  if (const char* whole = std::getenv("LIBSPLIT_WHOLE"); whole && std::string_view(whole) == "0")
    options.allow_whole = false;
  options.warm_start_dir = WarmStartStore::directory_from_environment();
  options.dynamic_packages = env_number<unsigned>("LIBSPLIT_DYNAMIC_PACKAGES", 0);
  options.hguided_k = env_number<double>("LIBSPLIT_HGUIDED_K", 2.0);
  options.hguided_min_groups = env_number<uint64_t>("LIBSPLIT_HGUIDED_MIN", 1);
  // 0 is meaningful here (no probes), so not env_number (which wants > 0).
  if (const char* budget = std::getenv("LIBSPLIT_EXPLORE_BUDGET"); budget && *budget) {
    char* end = nullptr;
    double value = std::strtod(budget, &end);
    if (end != budget && !*end && value >= 0 && value <= 1) options.explore_budget = value;
  }
  if (const char* host = std::getenv("LIBSPLIT_HOST_DEVICES"); host && std::string_view(host) == "all")
    options.host_devices_share_cores = false;
  return options;
}

std::unique_ptr<Scheduler> make_scheduler(std::string_view name,
                                          const std::vector<DeviceInfo>& devices,
                                          std::string* error) {
  return make_scheduler(name, devices, SchedulerOptions::from_environment(), error);
}

std::unique_ptr<Scheduler> make_scheduler(std::string_view name,
                                          const std::vector<DeviceInfo>& devices,
                                          const SchedulerOptions& options, std::string* error) {
  if (devices.empty()) {
    if (error) *error = "libsplit: no device to schedule on";
    return nullptr;
  }
  if (name.empty()) name = kDefaultScheduler;
  const size_t n = devices.size();
  const std::vector<double> uniform(n, 1.0 / double(n));
  // Powers: LIBSPLIT_PROPORTIONS when it has one entry per device.
  std::vector<double> powers = options.proportions.size() == n ? normalized(options.proportions)
                                                               : normalized(nominal_powers(devices));

  auto split = [&](std::string scheduler_name, std::vector<double> initial, bool adaptive,
                   std::function<std::unique_ptr<GranularitySolver>()> make_solver) {
    SplitSchedulerConfig config{std::move(scheduler_name), std::move(initial),
                                std::move(make_solver), adaptive};
    return std::make_unique<SplitScheduler>(std::move(config), devices, options);
  };

  if (name == "uniform")
    return split("uniform", uniform, false,
                 [=] { return std::make_unique<FixedSharesSolver>(uniform); });
  if (name == "static")
    return split("static", powers, false,
                 [=] { return std::make_unique<FixedSharesSolver>(powers); });
  if (name == "fixedpoint")
    return split("fixedpoint", uniform, true, [] { return std::make_unique<FixedPointSolver>(); });
  if (name == "broyden")
    return split("broyden", uniform, true, [] { return std::make_unique<BroydenSolver>(); });
  if (name == "dynamic") return std::make_unique<DynamicScheduler>(n, options.dynamic_packages);
  if (name == "hguided")
    return std::make_unique<HGuidedScheduler>(powers, options.hguided_k, options.hguided_min_groups);
  if (name == "autotune") return std::make_unique<AutoTuneScheduler>(devices);
  // LIBSPLIT_WHOLE=0 forces splitting (tests of the split path): no-regret
  // cannot honour that, so the default then is the previous one, which can.
  if (name == "auto" && !options.allow_whole) name = "adaptive";
  if (name == "auto") return std::make_unique<NoRegretScheduler>(devices, options);
  // The default before "auto" became no-regret: Broyden splits from the
  // first launch, Auto-Tune for moving work (kept for comparison).
  if (name == "adaptive")
    return std::make_unique<AdaptiveScheduler>(
        split("broyden", uniform, true, [] { return std::make_unique<BroydenSolver>(); }),
        std::make_unique<AutoTuneScheduler>(devices));
  if (error)
    *error = "libsplit: unknown scheduler '" + std::string(name) +
             "' (LIBSPLIT_SCHEDULER: uniform, static, fixedpoint, broyden, dynamic, hguided, "
             "autotune, auto, adaptive)";
  return nullptr;
}

}  // namespace libsplit::sched
