#include "device_model.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <random>

namespace libsplit::sched::sim {

bool Model::has_load_drift() const {
  return std::any_of(devices.begin(), devices.end(),
                     [](const DeviceModel& d) { return d.load_amplitude != 0; });
}

WorkProfile::WorkProfile(const Model& model, unsigned launch) : prefix_(model.numgroups + 1, 0.0) {
  const uint64_t n = model.numgroups;
  const uint64_t heavy_start = uint64_t(std::llround(model.heavy_from * double(n)));
  // Smooth bump (moving masses): weight 1 + (hot_weight - 1) * exp(-(d/sigma)^2)
  // with d the wrapped distance to the bump centre, sigma = hot_width * n / 2.
  double centre = model.hot_start + model.hot_speed * double(launch);
  if (model.hot_random) {
    std::mt19937_64 random(0x9e3779b97f4a7c15ull * (launch + 1));
    centre = std::uniform_real_distribution<double>(0.0, 1.0)(random);
  }
  centre = (centre - std::floor(centre)) * double(n);
  const double sigma = model.hot_width * double(n) / 2;
  for (uint64_t j = 0; j < n; ++j) {
    double w = j >= heavy_start ? model.heavy_weight : 1.0;
    if (sigma > 0) {
      double distance = std::fabs(double(j) + 0.5 - centre);
      distance = std::min(distance, double(n) - distance);
      w *= 1.0 + (model.hot_weight - 1.0) * std::exp(-(distance / sigma) * (distance / sigma));
    }
    prefix_[j + 1] = prefix_[j] + w;
  }
}

ChunkCost chunk_cost(const Model& model, const WorkProfile& work, unsigned device,
                     uint64_t first, uint64_t count, unsigned launch, bool split) {
  ChunkCost cost;
  if (count == 0) return cost;
  const DeviceModel& m = model.devices[device];
  double load = 1.0;
  if (m.load_amplitude != 0)
    load += m.load_amplitude * 0.5 *
            (1.0 + std::sin(2 * std::numbers::pi * double(launch) / m.load_period + m.load_phase));
  if (m.step_at > 0 && launch >= m.step_at) load *= m.step_factor;
  double per_group = m.seconds_per_group * load;
  if (m.cliff_fraction > 0 && double(count) > m.cliff_fraction * double(model.numgroups))
    per_group *= m.cliff_factor;
  cost.kernel = m.launch_overhead + per_group * work.weight(first, count);
  if (split) cost.transfer = m.split_overhead + m.split_transfer_per_group * double(count);
  return cost;
}

double optimal_makespan(const Model& model, unsigned launch) {
  const WorkProfile work(model, launch);
  const uint64_t n = model.numgroups;
  const unsigned devices = unsigned(model.devices.size());
  double best_single = INFINITY;
  for (unsigned d = 0; d < devices; ++d)
    best_single = std::min(best_single, chunk_cost(model, work, d, 0, n, launch, false).total());
  if (devices == 1) return best_single;

  // Feasible(T): devices in order each take the most groups they can finish by T.
  auto feasible = [&](double t) {
    uint64_t offset = 0;
    for (unsigned d = 0; d < devices && offset < n; ++d) {
      uint64_t low = 0, high = n - offset;  // largest count with cost <= t
      while (low < high) {
        uint64_t mid = (low + high + 1) / 2;
        if (chunk_cost(model, work, d, offset, mid, launch, true).total() <= t)
          low = mid;
        else
          high = mid - 1;
      }
      offset += low;
    }
    return offset >= n;
  };
  double low = 0, high = best_single * 2 + 1;
  while (!feasible(high)) high *= 2;
  for (int i = 0; i < 60; ++i) {
    double mid = 0.5 * (low + high);
    (feasible(mid) ? high : low) = mid;
  }
  return std::min(best_single, high);
}

namespace {

DeviceModel device(const std::string& name, bool gpu, double speed, double overhead) {
  DeviceModel m;
  m.info = {name, gpu, gpu ? 16u : 4u, 1000};
  m.seconds_per_group = 1e-5 / speed;  // the 1x device: 10 us per group
  m.launch_overhead = overhead;
  return m;
}

}  // namespace

std::vector<std::string> regret_model_names() {
  return {"ratio-1",     "ratio-3",      "ratio-10",    "ratio-100",     "ratio-1000",
          "ratio-10000", "slowhome-10",  "slowhome-1000", "overhead",   "step-1.6",
          "step-3",      "step-helper-3", "drift-2",    "hetero3",       "cliff",
          "tiny",        "membound",      "irregular",  "skewed",   "remote-fast",   "remote-slow"};
}

namespace {

// Two devices for the no-regret models: home 1 us per group, the other
// `ratio` times slower (ratio-1: identical devices); 20 us per sub-kernel,
// 20 us + 0.02 us per group of staging per split chunk or probe, 2 % noise.
void two_devices(Model& m, double ratio, bool slow_home) {
  DeviceModel fast = device(ratio == 1 ? "dev" : "fast", true, 10, 20e-6);
  DeviceModel slow = device(ratio == 1 ? "dev" : "slow", ratio == 1, 10 / ratio, 20e-6);
  if (ratio == 1) slow.info = fast.info;
  for (DeviceModel* d : {&fast, &slow}) {
    d->split_overhead = 20e-6;
    d->split_transfer_per_group = 0.02e-6;
  }
  m.devices = {fast, slow};
  m.home = slow_home ? 1 : 0;
  m.noise = 0.02;
}

}  // namespace

std::vector<std::string> model_names() {
  return {"hetero2", "hetero3", "hetero4", "spmv",      "cliff",     "tiny",
          "membound", "noisy",  "many",    "drift-load", "drift-mass", "irregular", "bump-4gpu", "bump-4gpu-moves"};
}

namespace {

// The models of the schedulers' comparison table (model_names()); false
// when `name` is none of them.
bool comparison_model(const std::string& name, unsigned devices, Model& m, std::string* error) {
  if (name == "hetero2") {
    m.description = "2 devices 1x/3x, 20 us launch overhead";
    m.devices = {device("cpu1x", false, 1, 20e-6), device("cpu3x", false, 3, 20e-6)};
  } else if (name == "hetero3") {
    m.description = "3 devices 1x/3x/30x, 50 us overhead, 10 us transfer per split chunk";
    m.devices = {device("cpu1x", false, 1, 50e-6), device("cpu3x", false, 3, 50e-6),
                 device("gpu30x", true, 30, 50e-6)};
    for (DeviceModel& d : m.devices) d.split_overhead = 10e-6;
  } else if (name == "hetero4") {
    m.description = "4 devices 1x/3x/30x/3000x, 20 us overhead";
    m.devices = {device("cpu1x", false, 1, 20e-6), device("cpu3x", false, 3, 20e-6),
                 device("gpu30x", true, 30, 20e-6), device("gpu3000x", true, 3000, 20e-6)};
  } else if (name == "spmv") {
    m.description = "3 devices 1x/3x/30x, last 20% of rows 10x heavier (offset-dependent)";
    m.devices = {device("cpu1x", false, 1, 20e-6), device("cpu3x", false, 3, 20e-6),
                 device("gpu30x", true, 30, 20e-6)};
    m.heavy_from = 0.8;
    m.heavy_weight = 10;
  } else if (name == "cliff") {
    m.description = "2 devices 3x/30x; the GPU is 2x slower per group above 85% of the groups";
    m.devices = {device("cpu3x", false, 3, 20e-6), device("gpu30x", true, 30, 20e-6)};
    m.devices[1].cliff_fraction = 0.85;
    m.devices[1].cliff_factor = 2;
  } else if (name == "tiny") {
    m.description = "tiny kernel (64 groups): 100 us split transfer beats any gain -> whole";
    m.numgroups = 64;
    m.devices = {device("cpu1x", false, 1, 20e-6), device("cpu3x", false, 3, 20e-6),
                 device("gpu30x", true, 30, 20e-6)};
    for (DeviceModel& d : m.devices) d.split_overhead = 100e-6;
  } else if (name == "membound") {
    m.description = "memory-bound: splitting moves data (2x the GPU kernel time) -> whole GPU";
    m.devices = {device("cpu1x", false, 1, 20e-6), device("gpu10x", true, 10, 20e-6)};
    for (DeviceModel& d : m.devices) d.split_transfer_per_group = 2e-6;
  } else if (name == "noisy") {
    make_model("hetero3", devices, &m, error);
    m.name = name;
    m.description = "hetero3 with 3% measurement noise (seeded)";
    m.noise = 0.03;
  } else if (name == "many") {
    unsigned n = devices ? devices : 16;
    m.description = std::to_string(n) + " devices, speeds 1x/3x/30x/2x cycling, 20 us overhead";
    m.numgroups = 16384;
    const double speeds[] = {1, 3, 30, 2};
    for (unsigned i = 0; i < n; ++i)
      m.devices.push_back(device("dev" + std::to_string(i), speeds[i % 4] >= 30,
                                 speeds[i % 4], 20e-6));
  } else if (name == "drift-load") {
    make_model("hetero3", devices, &m, error);
    m.name = name;
    m.description = "hetero3; the 3x CPU loses up to 2/3 of its speed to other processes "
                    "(period 60 launches)";
    m.devices[1].load_amplitude = 2;
    m.devices[1].load_period = 60;
  } else if (name == "drift-mass") {
    m.description = "3 devices 1x/3x/30x; a smooth bump (width 20%, up to 8x heavier) moves 1% "
                    "per launch";
    m.devices = {device("cpu1x", false, 1, 20e-6), device("cpu3x", false, 3, 20e-6),
                 device("gpu30x", true, 30, 20e-6)};
    m.hot_width = 0.2;
    m.hot_weight = 8;
    m.hot_speed = 0.01;
  } else if (name == "irregular") {
    m.description = "3 devices 1x/3x/30x, 16384 groups; a bump (width 10%, up to 30x heavier) "
                    "jumps to a random place at every launch";
    m.numgroups = 16384;
    m.devices = {device("cpu1x", false, 1, 20e-6), device("cpu3x", false, 3, 20e-6),
                 device("gpu30x", true, 30, 20e-6)};
    m.hot_width = 0.1;
    m.hot_weight = 30;
    m.hot_random = true;
  } else {
    return false;
  }
  return true;
}

// Mandelbrot at `large` over 4 H100: 384 rows of work-groups, the set's
// interior in the middle rows (a middle quarter weighs ~8x an outer one), the
// same rows at every launch. False when `name` is not it.
bool twin_gpus_model(const std::string& name, Model& m) {
  if (name != "bump-4gpu" && name != "bump-4gpu-moves") return false;
  m.description = "4 identical GPUs, 384 groups, a fixed bump in the middle (up to 12x heavier)";
  m.numgroups = 384;
  for (int i = 0; i < 4; ++i) {
    DeviceModel gpu = device("gpu", true, 10, 10e-6);
    gpu.seconds_per_group = 2.2e-6;
    gpu.split_overhead = 5e-6;
    m.devices.push_back(gpu);
  }
  m.hot_start = 0.5;
  m.hot_width = 0.5;
  m.hot_weight = 12;
  m.noise = 0.01;
  if (name == "bump-4gpu-moves") {
    // Its output through pinned host memory: a quarter of it (50 MB) took
    // ~5 ms to reach another H100, ~5x the time to compute it.
    m.move_per_group = 52e-6;
    m.description += "; a group's output moves in 52 us to a device that did not hold it";
  }
  return true;
}

// The two-device models of the no-regret table other than ratio-* and
// slowhome-* (regret_model_names()); false when `name` is none of them.
bool two_device_model(const std::string& name, Model& m) {
  if (name == "overhead") {
    two_devices(m, 10, false);
    m.devices[1].launch_overhead = 1e-3;
    m.description = "home 10x faster; the other device pays 1 ms per sub-kernel (split gain ~5%)";
  } else if (name == "step-1.6" || name == "step-3" || name == "step-helper-3") {
    two_devices(m, 3, false);
    const bool helper = name == "step-helper-3";
    DeviceModel& slowed = m.devices[helper ? 1 : 0];
    slowed.step_at = 20;
    slowed.step_factor = name == "step-1.6" ? 1.6 : 3;
    m.description = std::string("speeds 3:1 (home fast); at launch 20 the ") +
                    (helper ? "other device" : "home device") + " gets " +
                    (name == "step-1.6" ? "1.6x" : "3x") + " slower for good";
  } else if (name == "skewed") {
    // Mandelbrot's rows outside the set: a probe of the first groups sees a
    // device that looks 50x faster than it is on the whole launch.
    two_devices(m, 2, false);
    std::swap(m.devices[0], m.devices[1]);  // the helper first: its probes take the first groups
    m.heavy_from = 0.25;
    m.heavy_weight = 50;
    m.description = "speeds 1:2, home second; the first quarter of the groups weighs 1/50 of the "
                    "rest, so probes of the helper's first groups flatter it";
  } else if (name == "remote-fast" || name == "remote-slow") {
    // Issue 26: the app's GPU and three GPUs of other hosts behind
    // PoCL-Remote, as fast, each sub-kernel paying a network round trip
    // (200 us) and its inputs and outputs crossing the network: 0.05 us per
    // group (fast network, the split wins) or 5 us (five times the kernel's
    // own time per group: the split loses, the work stays local).
    const bool fast = name == "remote-fast";
    m.devices = {device("gpu", true, 10, 20e-6)};
    for (int i = 0; i < 3; ++i) {
      // Named as the local one (PoCL-Remote reports the server's device's
      // name): only DeviceInfo::remote tells them apart.
      DeviceModel remote = device("gpu", true, 10, 200e-6);
      remote.info.remote = true;
      remote.split_overhead = 200e-6;
      remote.split_transfer_per_group = fast ? 0.05e-6 : 5e-6;
      m.devices.push_back(remote);
    }
    m.noise = 0.02;
    m.description = std::string("a local GPU and 3 as fast behind PoCL-Remote: 200 us a round trip, ") +
                    (fast ? "0.05" : "5") + " us of network per group moved";
  } else if (name == "drift-2") {
    two_devices(m, 3, false);
    m.devices[1].load_amplitude = 2;
    m.devices[1].load_period = 80;
    m.description = "speeds 3:1 (home fast); the other device loses up to 2/3 of its speed "
                    "(period 80 launches)";
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool make_model(const std::string& name, unsigned devices, Model* out, std::string* error) {
  Model m;
  m.name = name;
  if (name.rfind("ratio-", 0) == 0 || name.rfind("slowhome-", 0) == 0) {
    const bool slow_home = name[0] == 's';
    const std::string number = name.substr(name.find('-') + 1);
    char* end = nullptr;
    const double ratio = std::strtod(number.c_str(), &end);
    if (number.empty() || *end || !(ratio >= 1)) {
      if (error) *error = "unknown model '" + name + "'";
      return false;
    }
    two_devices(m, ratio, slow_home);
    m.description = "2 devices, speeds 1:" + number + ", home = the " +
                    (slow_home ? "slow" : "fast") + " one, 2% noise";
    *out = std::move(m);
    return true;
  }
  if (!comparison_model(name, devices, m, error) && !two_device_model(name, m) && !twin_gpus_model(name, m)) {
    if (error) *error = "unknown model '" + name + "'";
    return false;
  }
  // The app's own device: the fastest (what a user picks).
  m.home = 0;
  for (unsigned d = 1; d < m.devices.size(); ++d)
    if (m.devices[d].seconds_per_group < m.devices[m.home].seconds_per_group) m.home = d;
  *out = std::move(m);
  return true;
}

}  // namespace libsplit::sched::sim
