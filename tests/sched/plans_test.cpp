#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "chunk_schedulers.h"
#include "scheduler.h"

namespace libsplit::sched {
namespace {

std::vector<DeviceInfo> devices(size_t n) {
  std::vector<DeviceInfo> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back({"dev" + std::to_string(i), i % 2 == 1, unsigned(4 + i), 1000});
  return out;
}

LaunchKey key() { return {"k", 1, {64 * 1000, 1, 1}, {64, 1, 1}, 0}; }

SchedulerOptions quiet_options() {
  SchedulerOptions options;  // no warm-start directory: no files
  return options;
}

// Drains a plan with one thread per device, as the runtime does, and checks
// that the chunks cover [0, numgroups) exactly once.
std::vector<Chunk> drain(LaunchPlan& plan, unsigned n, uint64_t numgroups) {
  std::mutex mutex;
  std::vector<Chunk> chunks;
  std::vector<std::thread> threads;
  for (unsigned d = 0; d < n; ++d)
    threads.emplace_back([&, d] {
      while (std::optional<Chunk> chunk = plan.next(d)) {
        EXPECT_EQ(chunk->device, d);
        std::lock_guard lock(mutex);
        chunks.push_back(*chunk);
      }
    });
  for (std::thread& t : threads) t.join();
  std::vector<unsigned> covered(numgroups, 0);
  for (const Chunk& c : chunks) {
    EXPECT_GT(c.group_count, 0u);
    EXPECT_LE(c.first_group + c.group_count, numgroups);
    for (uint64_t g = c.first_group; g < c.first_group + c.group_count && g < numgroups; ++g)
      ++covered[g];
  }
  EXPECT_TRUE(std::all_of(covered.begin(), covered.end(), [](unsigned c) { return c == 1; }));
  return chunks;
}

TEST(MakeScheduler, KnowsEveryNameAndRejectsOthers) {
  for (const char* name : {"uniform", "static", "fixedpoint", "broyden", "dynamic", "hguided",
                           "autotune", "adaptive", "auto"}) {
    std::unique_ptr<Scheduler> s = make_scheduler(name, devices(3), quiet_options());
    ASSERT_TRUE(s) << name;
    EXPECT_EQ(s->name(), name);
  }
  EXPECT_TRUE(make_scheduler("", devices(2), quiet_options()));  // default
  std::string error;
  EXPECT_FALSE(make_scheduler("bogus", devices(2), quiet_options(), &error));
  EXPECT_NE(error.find("bogus"), std::string::npos);
}

TEST(Plans, EverySchedulerCoversTheRangeExactlyOnceFromConcurrentThreads) {
  for (const char* name : {"uniform", "static", "fixedpoint", "broyden", "dynamic", "hguided",
                           "autotune", "adaptive", "auto"}) {
    for (unsigned n : {1u, 2u, 5u, 16u}) {
      for (uint64_t numgroups : {1ull, 7ull, 1000ull}) {
        std::unique_ptr<Scheduler> s = make_scheduler(name, devices(n), quiet_options());
        for (int launch = 0; launch < 3; ++launch) {
          std::unique_ptr<LaunchPlan> plan = s->plan(key(), numgroups);
          std::vector<Chunk> chunks = drain(*plan, n, numgroups);
          std::vector<ChunkTiming> timings;
          for (const Chunk& c : chunks)
            timings.push_back({c, 1e-6 * double(c.group_count) / (1 + c.device), 0});
          s->report(key(), timings);
        }
      }
    }
  }
}

TEST(Plans, StaticUsesTheGivenProportionsInDeviceOrder) {
  SchedulerOptions options = quiet_options();
  options.proportions = {1, 3};
  std::unique_ptr<Scheduler> s = make_scheduler("static", devices(2), options);
  std::unique_ptr<LaunchPlan> plan = s->plan(key(), 100);
  std::optional<Chunk> a = plan->next(0), b = plan->next(1);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->first_group, 0u);
  EXPECT_EQ(a->group_count, 25u);
  EXPECT_EQ(b->first_group, 25u);
  EXPECT_EQ(b->group_count, 75u);
  EXPECT_FALSE(plan->next(0));
}

TEST(Plans, DynamicHandsOutEqualPackages) {
  SchedulerOptions options = quiet_options();
  options.dynamic_packages = 10;
  std::unique_ptr<Scheduler> s = make_scheduler("dynamic", devices(2), options);
  std::unique_ptr<LaunchPlan> plan = s->plan(key(), 100);
  for (int i = 0; i < 10; ++i) {
    std::optional<Chunk> c = plan->next(unsigned(i % 2));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->group_count, 10u);
    EXPECT_EQ(c->first_group, uint64_t(10 * i));
  }
  EXPECT_FALSE(plan->next(0));
}

TEST(Plans, HGuidedPackagesShrinkAndFollowPower) {
  // packet_i = floor(G_r * P_i / (k * n * sum P)).
  EXPECT_EQ(hguided_package(1000, {1, 3}, 1, 2.0, 1), 187u);  // 1000*3/(2*2*4)
  EXPECT_EQ(hguided_package(1000, {1, 3}, 0, 2.0, 1), 62u);
  EXPECT_EQ(hguided_package(10, {1, 3}, 0, 2.0, 4), 4u);  // minimum package
  EXPECT_EQ(hguided_package(3, {1, 3}, 0, 2.0, 4), 3u);   // never more than remains
  SchedulerOptions options = quiet_options();
  options.proportions = {1, 1};
  std::unique_ptr<Scheduler> s = make_scheduler("hguided", devices(2), options);
  std::unique_ptr<LaunchPlan> plan = s->plan(key(), 1000);
  uint64_t previous = 1000;
  while (std::optional<Chunk> c = plan->next(0)) {
    EXPECT_LE(c->group_count, previous);
    previous = c->group_count;
  }
  EXPECT_EQ(previous, 1u);
}

}  // namespace
}  // namespace libsplit::sched
