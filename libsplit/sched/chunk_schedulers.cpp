#include "chunk_schedulers.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "plans.h"
#include "split_scheduler.h"
#include "warm_start.h"

namespace libsplit::sched {

uint64_t hguided_package(uint64_t remaining, const std::vector<double>& powers, unsigned device,
                         double k, uint64_t min_groups) {
  const double total = std::accumulate(powers.begin(), powers.end(), 0.0);
  const double n = double(powers.size());
  double size = 0;
  if (total > 0 && device < powers.size())
    size = std::floor(double(remaining) * powers[device] / (k * n * total));
  uint64_t groups = std::max<uint64_t>(uint64_t(size), std::max<uint64_t>(min_groups, 1));
  return std::min(groups, remaining);
}

namespace {

class EqualPackagePlan final : public PackagePlan {
 public:
  EqualPackagePlan(uint64_t numgroups, uint64_t size)
      : PackagePlan(numgroups, {}), size_(size) {}

 protected:
  uint64_t size_for(unsigned, uint64_t) override { return size_; }

 private:
  uint64_t size_;
};

class GuidedPlan final : public PackagePlan {
 public:
  GuidedPlan(uint64_t numgroups, std::vector<double> powers, double k,
             std::vector<uint64_t> min_groups, std::vector<double> predicted)
      : PackagePlan(numgroups, std::move(predicted)),
        powers_(std::move(powers)),
        k_(k),
        min_groups_(std::move(min_groups)) {}

 protected:
  uint64_t size_for(unsigned device, uint64_t remaining) override {
    uint64_t min = device < min_groups_.size() ? min_groups_[device] : 1;
    return hguided_package(remaining, powers_, device, k_, min);
  }

 private:
  std::vector<double> powers_;
  double k_;
  std::vector<uint64_t> min_groups_;
};

}  // namespace

DynamicScheduler::DynamicScheduler(size_t devices, unsigned packages)
    : devices_(devices), packages_(packages ? packages : unsigned(8 * std::max<size_t>(1, devices))) {}

std::unique_ptr<LaunchPlan> DynamicScheduler::plan(const LaunchKey&, uint64_t numgroups) {
  uint64_t size = std::max<uint64_t>(1, (numgroups + packages_ - 1) / packages_);
  return std::make_unique<EqualPackagePlan>(numgroups, size);
}

HGuidedScheduler::HGuidedScheduler(std::vector<double> powers, double k, uint64_t min_groups)
    : powers_(std::move(powers)), k_(k > 0 ? k : 2.0), min_groups_(std::max<uint64_t>(1, min_groups)) {}

std::unique_ptr<LaunchPlan> HGuidedScheduler::plan(const LaunchKey&, uint64_t numgroups) {
  return std::make_unique<GuidedPlan>(numgroups, powers_, k_,
                                      std::vector<uint64_t>(powers_.size(), min_groups_),
                                      std::vector<double>{});
}

AutoTuneScheduler::AutoTuneScheduler(const std::vector<DeviceInfo>& devices)
    : devices_(devices), nominal_(nominal_powers(devices)) {}

std::unique_ptr<LaunchPlan> AutoTuneScheduler::plan(const LaunchKey& key, uint64_t numgroups) {
  std::lock_guard lock(mutex_);
  KeyState& state = states_[key];
  const size_t n = devices_.size();
  if (state.rate.size() != n) state.rate.assign(n, 0.0);

  // Measured throughputs where known; the others scaled from nominal powers.
  std::vector<double> powers(n, 0.0), ratio;
  for (size_t d = 0; d < n; ++d)
    if (state.rate[d] > 0) ratio.push_back(state.rate[d] / nominal_[d]);
  double scale = ratio.empty() ? 1.0 : std::accumulate(ratio.begin(), ratio.end(), 0.0) / double(ratio.size());
  for (size_t d = 0; d < n; ++d) powers[d] = state.rate[d] > 0 ? state.rate[d] : nominal_[d] * scale;

  std::vector<uint64_t> min_groups(n);
  for (size_t d = 0; d < n; ++d) {
    uint64_t units = std::max(1u, devices_[d].compute_units);
    min_groups[d] = devices_[d].is_gpu ? std::max<uint64_t>(units, numgroups / 20) : units;
  }
  std::vector<double> predicted(n, 0.0);
  if (!ratio.empty()) {
    double total_rate = std::accumulate(powers.begin(), powers.end(), 0.0);
    std::fill(predicted.begin(), predicted.end(), double(numgroups) / total_rate);
  }
  return std::make_unique<GuidedPlan>(numgroups, std::move(powers), state.k, std::move(min_groups),
                                      std::move(predicted));
}

void AutoTuneScheduler::report(const LaunchKey& key, const std::vector<ChunkTiming>& timings) {
  std::lock_guard lock(mutex_);
  KeyState& state = states_[key];
  const size_t n = devices_.size();
  if (state.rate.size() != n) state.rate.assign(n, 0.0);
  std::vector<uint64_t> groups(n, 0);
  std::vector<double> busy(n, 0.0);
  for (const ChunkTiming& timing : timings) {
    if (timing.chunk.device >= n) continue;
    groups[timing.chunk.device] += timing.chunk.group_count;
    busy[timing.chunk.device] += timing.seconds + timing.transfer_seconds;
  }
  double latest = 0, earliest = 0;
  bool any = false;
  for (size_t d = 0; d < n; ++d) {
    if (groups[d] == 0 || busy[d] <= 0) continue;
    double rate = double(groups[d]) / busy[d];
    // Smoothed: one irregular launch must not swing the powers.
    state.rate[d] = state.rate[d] > 0 ? 0.5 * state.rate[d] + 0.5 * rate : rate;
    latest = any ? std::max(latest, busy[d]) : busy[d];
    earliest = any ? std::min(earliest, busy[d]) : busy[d];
    any = true;
  }
  if (!any || latest <= 0) return;
  double imbalance = (latest - earliest) / latest;
  if (imbalance > 0.05)
    state.k = std::min(state.k * 1.5, 16.0);
  else if (imbalance < 0.02)
    state.k = std::max(state.k / 1.25, 1.0);
}

}  // namespace libsplit::sched
