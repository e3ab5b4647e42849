// Simulated devices for testing and comparing schedulers: f_i(x, offset, t)
// with heterogeneous speeds, per-sub-kernel overheads, offset-dependent work
// (heavy rows), cliffs, loads drifting with the launch index, and noise.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler.h"

namespace libsplit::sched::sim {

struct DeviceModel {
  DeviceInfo info;
  double seconds_per_group = 1e-5;  // for a group of work weight 1, no load
  double launch_overhead = 0;       // per sub-kernel (chunk)
  // Paid only when the launch is split (region transfers, merges); reported
  // as transfer time.
  double split_overhead = 0;            // per chunk
  double split_transfer_per_group = 0;  // per group of the chunk
  // Cliff (paper Fig. 1b): a chunk larger than cliff_fraction * numgroups
  // costs cliff_factor times more per group (e.g. it no longer fits).
  double cliff_fraction = 0;
  double cliff_factor = 1;
  // Load from other processes: speed divided by 1 + amp*(1+sin(2 pi t/period + phase))/2.
  double load_amplitude = 0;
  double load_period = 1;
  double load_phase = 0;
  // Load step: from launch step_at on (0 = never) every group costs
  // step_factor times more.
  unsigned step_at = 0;
  double step_factor = 1;
};

struct Model {
  std::string name;
  std::string description;
  uint64_t numgroups = 4096;
  std::vector<DeviceModel> devices;
  // Offset-dependent work: groups at positions >= heavy_from * numgroups
  // weigh heavy_weight (SpMV with heavy rows at the end).
  double heavy_from = 1.0;
  double heavy_weight = 1.0;
  // A hot region (moving masses): a smooth bump of width hot_width (share of
  // the groups) and peak weight hot_weight, centred at hot_start + hot_speed
  // * t (wrapping).
  double hot_width = 0, hot_weight = 1, hot_start = 0, hot_speed = 0;
  bool hot_random = false;  // the bump jumps to a random place at every launch
  // Seconds to move one group's data to a device that did not hold it
  // (it ran elsewhere at the last launch; home holds everything at first):
  // a one-off cost when the slices change, none while they stay.
  double move_per_group = 0;
  double noise = 0;  // relative standard deviation of measured times
  // The device the app's own queue targets (LaunchKey::home); make_model
  // sets it to the fastest device unless the model says otherwise.
  unsigned home = 0;
  bool drifting() const { return hot_speed != 0 || hot_random || has_load_drift(); }
  bool has_load_drift() const;
};

// Work weights of the groups at one launch, with prefix sums.
class WorkProfile {
 public:
  WorkProfile(const Model& model, unsigned launch);
  double weight(uint64_t first, uint64_t count) const {
    return prefix_[first + count] - prefix_[first];
  }

 private:
  std::vector<double> prefix_;
};

// Noise-free seconds of one chunk on device d at launch t.
struct ChunkCost {
  double kernel = 0;
  double transfer = 0;
  double total() const { return kernel + transfer; }
};
ChunkCost chunk_cost(const Model& model, const WorkProfile& work, unsigned device,
                     uint64_t first, uint64_t count, unsigned launch, bool split);

// The best makespan any one-chunk-per-device split (in device order) or any
// single device can reach at launch t: bisection on T, greedy widest chunks.
double optimal_makespan(const Model& model, unsigned launch);

// Model catalog. `devices` only matters for "many" (default 16).
// model_names(): the convergence models; regret_model_names(): the models
// of the no-regret ("what users feel") table. make_model knows both.
std::vector<std::string> model_names();
std::vector<std::string> regret_model_names();
bool make_model(const std::string& name, unsigned devices, Model* out, std::string* error);

}  // namespace libsplit::sched::sim
