#include "plans.h"

#include <algorithm>

namespace libsplit::sched {

StaticPlan::StaticPlan(const std::vector<uint64_t>& groups_per_device,
                       std::vector<double> predicted, std::optional<unsigned> whole)
    : handed_out_(new std::atomic<bool>[groups_per_device.size()]),
      predicted_(std::move(predicted)),
      whole_(whole) {
  uint64_t offset = 0;
  for (unsigned device = 0; device < groups_per_device.size(); ++device) {
    chunks_.push_back({device, offset, groups_per_device[device]});
    offset += groups_per_device[device];
    handed_out_[device] = false;
  }
}

std::optional<Chunk> StaticPlan::next(unsigned device) {
  if (device >= chunks_.size() || chunks_[device].group_count == 0) return std::nullopt;
  if (handed_out_[device].exchange(true)) return std::nullopt;
  return chunks_[device];
}

double StaticPlan::predicted_seconds(unsigned device) const {
  return device < predicted_.size() ? predicted_[device] : 0;
}

std::optional<Chunk> PackagePlan::next(unsigned device) {
  std::lock_guard lock(mutex_);
  if (cursor_ >= numgroups_) return std::nullopt;
  const uint64_t remaining = numgroups_ - cursor_;
  const uint64_t size = std::clamp<uint64_t>(size_for(device, remaining), 1, remaining);
  Chunk chunk{device, cursor_, size};
  cursor_ += size;
  return chunk;
}

}  // namespace libsplit::sched
