// LaunchPlan implementations shared by the schedulers.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "scheduler.h"

namespace libsplit::sched {

// At most one contiguous chunk per device, ordered by device.
class StaticPlan final : public LaunchPlan {
 public:
  StaticPlan(const std::vector<uint64_t>& groups_per_device, std::vector<double> predicted,
             std::optional<unsigned> whole = std::nullopt);
  std::optional<Chunk> next(unsigned device) override;
  double predicted_seconds(unsigned device) const override;
  std::optional<unsigned> whole_device() const override { return whole_; }
  std::vector<Chunk> probes() const override { return probes_; }
  bool exploration_budget_spent() const override { return budget_spent_; }
  void set_probes(std::vector<Chunk> probes) { probes_ = std::move(probes); }
  void set_budget_spent(bool spent) { budget_spent_ = spent; }
  double probe_staging_room() const override { return staging_room_; }
  void set_probe_staging_room(double seconds) { staging_room_ = seconds; }
  bool wants_report() const override { return wants_report_; }
  void set_wants_report(bool wanted) { wants_report_ = wanted; }
  double staging_allowance() const override { return staging_allowance_; }
  void set_staging_allowance(double seconds) { staging_allowance_ = seconds; }
  std::string why_whole() const override { return why_whole_; }
  void set_why_whole(std::string why) { why_whole_ = std::move(why); }
  bool halves_on_home() const override { return halves_; }
  void set_halves_on_home(bool halves) { halves_ = halves; }

 private:
  std::string why_whole_;
  double staging_allowance_ = INFINITY;
  std::vector<Chunk> probes_;
  bool budget_spent_ = false;
  bool wants_report_ = true;
  bool halves_ = false;
  double staging_room_ = INFINITY;
  std::vector<Chunk> chunks_;
  std::unique_ptr<std::atomic<bool>[]> handed_out_;
  std::vector<double> predicted_;
  std::optional<unsigned> whole_;
};

// Packages handed out in NDRange order as devices ask; the package size is
// chosen by `size_for(device, remaining)`.
class PackagePlan : public LaunchPlan {
 public:
  PackagePlan(uint64_t numgroups, std::vector<double> predicted)
      : numgroups_(numgroups), predicted_(std::move(predicted)) {}
  std::optional<Chunk> next(unsigned device) final;
  double predicted_seconds(unsigned device) const final {
    return device < predicted_.size() ? predicted_[device] : 0;
  }

 protected:
  virtual uint64_t size_for(unsigned device, uint64_t remaining) = 0;

 private:
  std::mutex mutex_;
  uint64_t numgroups_;
  uint64_t cursor_ = 0;
  std::vector<double> predicted_;
};

}  // namespace libsplit::sched
