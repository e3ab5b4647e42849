// Schedulers driven by the device simulator: convergence to the optimal
// makespan the model itself gives (bisection on T), tracking of drifting
// loads, the split-vs-whole decision, and coverage of every plan.
#include <gtest/gtest.h>

#include <algorithm>

#include "device_model.h"
#include "simulate.h"

namespace libsplit::sched::sim {
namespace {

Model model_named(const std::string& name, unsigned devices = 0) {
  Model model;
  std::string error;
  EXPECT_TRUE(make_model(name, devices, &model, &error)) << error;
  return model;
}

std::vector<LaunchResult> run(const std::string& scheduler, const Model& model,
                              unsigned launches, uint64_t seed = 1) {
  SchedulerOptions options;  // no environment, no warm start
  std::unique_ptr<Scheduler> s = make_scheduler(scheduler, device_infos(model), options);
  EXPECT_TRUE(s);
  SimulationOptions sim;
  sim.launches = launches;
  sim.seed = seed;
  return simulate(*s, model, sim);
}

const char* kStaticModels[] = {"hetero2", "hetero3", "hetero4", "spmv", "cliff",
                               "tiny",    "membound", "noisy",  "many"};

// Reaches 5% of the optimum within `bound` launches and, once a cliff had
// time to be bisected (launch 16 on), stays there: a periodic re-check
// launch may exceed it, most launches may not.
void expect_converges(const std::string& scheduler, unsigned bound) {
  for (const char* name : kStaticModels) {
    SCOPED_TRACE(std::string(scheduler) + " on " + name);
    std::vector<LaunchResult> results = run(scheduler, model_named(name), 30);
    unsigned reached = launches_to_reach(results, 0.05);
    EXPECT_GE(reached, 1u);
    EXPECT_LE(reached, bound);
    unsigned within = 0;
    const unsigned settled = 16;
    for (unsigned i = settled; i < results.size(); ++i)
      within += results[i].over_optimal() <= 0.05;
    EXPECT_GE(double(within), 0.85 * double(results.size() - settled));
  }
}

TEST(Convergence, BroydenWithinFivePercentInFourLaunches) { expect_converges("broyden", 4); }

TEST(Convergence, FixedPointWithinFivePercentInEightLaunches) {
  expect_converges("fixedpoint", 8);
}

// The default before the no-regret "auto" (no_regret_test.cpp tests auto).
TEST(Convergence, AdaptiveSchedulerConverges) { expect_converges("adaptive", 4); }

TEST(Convergence, NoiseWithOtherSeedsStillConverges) {
  for (uint64_t seed : {2u, 3u, 4u, 5u}) {
    SCOPED_TRACE(seed);
    EXPECT_LE(launches_to_reach(run("broyden", model_named("noisy"), 12, seed), 0.05), 4u);
    EXPECT_LE(launches_to_reach(run("fixedpoint", model_named("noisy"), 12, seed), 0.05), 8u);
  }
}

TEST(Convergence, UniformIsFarFromOptimalOnHeterogeneousDevices) {
  // The check can fail: the same measure on a poor scheduler is poor.
  std::vector<LaunchResult> results = run("uniform", model_named("hetero3"), 5);
  EXPECT_EQ(launches_to_reach(results, 0.05), 0u);
}

TEST(Tracking, DriftingLoadsStayWithinTenPercent) {
  for (const char* scheduler : {"fixedpoint", "broyden"}) {
    for (const char* name : {"drift-load", "drift-mass"}) {
      SCOPED_TRACE(std::string(scheduler) + " on " + name);
      std::vector<LaunchResult> results = run(scheduler, model_named(name), 80);
      double sum = 0;
      unsigned within = 0, counted = 0;
      for (unsigned i = 8; i < results.size(); ++i, ++counted) {
        sum += results[i].over_optimal();
        within += results[i].over_optimal() <= 0.10;
      }
      EXPECT_LE(sum / counted, 0.05);
      EXPECT_GE(double(within), 0.9 * counted);
    }
  }
}

TEST(Tracking, AConvergedSplitFollowsALoadChange) {
  // Converge, then the 3x device loses 2/3 of its speed for good: the split
  // must move (nothing is frozen).
  Model model = model_named("hetero3");
  SchedulerOptions options;
  std::unique_ptr<Scheduler> s = make_scheduler("broyden", device_infos(model), options);
  SimulationOptions sim;
  sim.launches = 10;
  simulate(*s, model, sim);
  model.devices[1].seconds_per_group *= 3;
  std::vector<LaunchResult> after = simulate(*s, model, sim);
  EXPECT_GT(after[0].over_optimal(), 0.05);  // the old split is now wrong
  EXPECT_LE(after.back().over_optimal(), 0.05);
}

TEST(WholeOrSplit, TinyAndMemoryBoundKernelsRunWhole) {
  for (const char* name : {"tiny", "membound"}) {
    SCOPED_TRACE(name);
    std::vector<LaunchResult> results = run("broyden", model_named(name), 40);
    unsigned whole = 0;
    for (unsigned i = 4; i < results.size(); ++i) whole += results[i].whole_device.has_value();
    EXPECT_GE(whole, 30u);
    // On the fastest device (the last one in these models).
    EXPECT_EQ(results.back().whole_device.value_or(99), results.back().groups.size() - 1);
  }
}

TEST(WholeOrSplit, ComputeBoundKernelsStaySplit) {
  for (const char* name : {"hetero3", "spmv", "many"}) {
    SCOPED_TRACE(name);
    std::vector<LaunchResult> results = run("broyden", model_named(name), 40);
    unsigned whole = 0;
    for (unsigned i = 4; i < results.size(); ++i) whole += results[i].whole_device.has_value();
    EXPECT_LE(whole, 3u);
  }
}

TEST(WholeOrSplit, DisabledMeansAlwaysSplit) {
  Model model = model_named("tiny");
  SchedulerOptions options;
  options.allow_whole = false;
  std::unique_ptr<Scheduler> s = make_scheduler("broyden", device_infos(model), options);
  SimulationOptions sim;
  sim.launches = 10;
  for (const LaunchResult& r : simulate(*s, model, sim)) EXPECT_FALSE(r.whole_device);
}

TEST(Coverage, EveryPlanOfEverySchedulerCoversEachGroupOnceUpTo16Devices) {
  for (const char* scheduler : {"uniform", "static", "fixedpoint", "broyden", "dynamic",
                                "hguided", "autotune", "adaptive", "auto"}) {
    for (const std::string& name : model_names()) {
      for (unsigned devices : {1u, 7u, 16u}) {
        if (name != "many" && devices != 1) continue;
        Model model = model_named(name, devices);
        if (devices == 1 && name == "many") model = model_named(name, 1);
        for (const LaunchResult& r : run(scheduler, model, 6))
          ASSERT_TRUE(r.covered_exactly_once) << scheduler << " " << name << " launch " << r.launch;
      }
    }
  }
}

double mean_over_optimal(const std::vector<LaunchResult>& results, unsigned from) {
  double sum = 0;
  for (unsigned i = from; i < results.size(); ++i) sum += results[i].over_optimal();
  return sum / double(results.size() - from);
}

TEST(Adaptive, MovingWorkGoesToChunksAndBeatsAStaticSplit) {
  Model model = model_named("irregular");
  std::vector<LaunchResult> automatic = run("adaptive", model, 40);
  std::vector<LaunchResult> broyden = run("broyden", model, 40);
  // Chunked launches: more chunks than devices.
  unsigned chunked = 0;
  for (unsigned i = 10; i < automatic.size(); ++i)
    chunked += automatic[i].timings.size() > automatic[i].groups.size();
  EXPECT_GE(chunked, 25u);
  EXPECT_LT(mean_over_optimal(automatic, 10), 0.5 * mean_over_optimal(broyden, 10));
}

TEST(Adaptive, RegularWorkStaysOnTheSolver) {
  for (const char* name : {"hetero3", "spmv", "noisy", "drift-load", "drift-mass"}) {
    SCOPED_TRACE(name);
    std::vector<LaunchResult> results = run("adaptive", model_named(name), 40);
    for (unsigned i = 4; i < results.size(); ++i)
      EXPECT_LE(results[i].timings.size(), results[i].groups.size()) << "launch " << i;
  }
}

TEST(Optimal, BisectionMatchesTheClosedFormOnALinearModel) {
  // Two devices without overheads: T* = N / (1/c0 + 1/c1), up to one group.
  Model model = model_named("hetero2");
  for (DeviceModel& d : model.devices) d.launch_overhead = 0;
  double c0 = model.devices[0].seconds_per_group, c1 = model.devices[1].seconds_per_group;
  double closed = double(model.numgroups) / (1 / c0 + 1 / c1);
  EXPECT_NEAR(optimal_makespan(model, 0), closed, c0);
}

}  // namespace
}  // namespace libsplit::sched::sim
