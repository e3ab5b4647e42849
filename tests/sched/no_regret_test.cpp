// The default scheduler ("auto", no regret) on the device simulator: what
// users feel is the total time of a run, compared with the app alone on its
// own device and with the per-launch optimum the model itself gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <thread>

#include "device_model.h"
#include "no_regret_scheduler.h"
#include "simulate.h"

namespace libsplit::sched::sim {
namespace {

Model model_named(const std::string& name) {
  Model model;
  std::string error;
  EXPECT_TRUE(make_model(name, 0, &model, &error)) << error;
  return model;
}

std::vector<LaunchResult> run(const Model& model, unsigned launches, uint64_t seed = 1,
                              SchedulerOptions options = {}) {
  std::unique_ptr<Scheduler> s = make_scheduler("auto", device_infos(model), options);
  EXPECT_TRUE(s);
  SimulationOptions sim;
  sim.launches = launches;
  sim.seed = seed;
  return simulate(*s, model, sim);
}

// Models where no other device can help the home device (the oracle is
// home alone, or within the 2 % margin of it): auto must cost no more than
// 2 % over home alone.
const char* kUselessOthers[] = {"ratio-100", "ratio-1000", "ratio-10000", "tiny", "membound"};

TEST(NoRegret, UselessOtherDevicesCostAtMostTwoPercentOverHomeAlone) {
  for (const char* name : kUselessOthers) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE(std::string(name) + " seed " + std::to_string(seed));
      std::vector<LaunchResult> results = run(model_named(name), 300, seed);
      EXPECT_LE(run_totals(results).vs_home(), 1.02);
      // Over 30 launches too, except `tiny`: its launch (41 us) is shorter
      // than the staging of one probe (100 us), which is unknown until the
      // first probe ran.
      if (std::string(name) != "tiny") {
        EXPECT_LE(run_totals(results, 0, 30).vs_home(), 1.02);
      }
    }
  }
}

TEST(NoRegret, NeverSlowerThanHomeAloneOnAnyModel) {
  // Over a whole run, on every model of the table. `irregular` (a 30x
  // heavier bump jumping to a random place every launch) may lose one split
  // launch to the bump before the budget stops splitting: 3 %.
  for (const std::string& name : regret_model_names()) {
    SCOPED_TRACE(name);
    std::vector<LaunchResult> results = run(model_named(name), 300);
    EXPECT_LE(run_totals(results).vs_home(), name == "irregular" ? 1.03 : 1.02);
  }
}

TEST(NoRegret, BalancedModelsWithinFivePercentOfTheOptimumAfterTenLaunches) {
  for (const char* name : {"ratio-1", "ratio-3", "ratio-10", "slowhome-10", "hetero3", "drift-2"}) {
    for (uint64_t seed : {1u, 2u}) {
      SCOPED_TRACE(std::string(name) + " seed " + std::to_string(seed));
      std::vector<LaunchResult> results = run(model_named(name), 300, seed);
      EXPECT_LE(run_totals(results, 10).vs_optimal(), 1.05);
    }
  }
}

// Mandelbrot over 4 H100: the middle rows hold the set. The solvers saw one
// time per group per device, and the split oscillated between two mirror
// images for good (1.93x the app's GPU alone where ~3.8x was reachable; in
// the model +63 % over the optimum from launch 20 on). The work profile
// (work_profile.h) places the heavy groups and keeps the split balanced.
TEST(NoRegret, AFixedBumpOverFourTwinsStaysBalanced) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::vector<LaunchResult> results = run(model_named("bump-4gpu"), 200, seed);
    EXPECT_LE(run_totals(results, 10).vs_optimal(), 1.05);
    double worst = 0;
    for (size_t l = 10; l < results.size(); ++l) worst = std::max(worst, results[l].over_optimal());
    EXPECT_LE(worst, 0.15);
  }
}

// The same with the output moving in (52 us a group, 5x its compute) to a
// device that did not hold it: new slices pay once, kept ones never (before
// the profile: 1.26-1.29x the optimum).
TEST(NoRegret, AFixedBumpWhoseDataMovesOnceStaysSplit) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::vector<LaunchResult> results = run(model_named("bump-4gpu-moves"), 400, seed);
    EXPECT_LE(run_totals(results).vs_optimal(), 1.22);
    EXPECT_LE(run_totals(results).vs_home(), 0.33);
  }
}

// Two twin GPUs over 100 groups whose data stays where it was computed:
// 0.1 ms a group of work, 0.1 ms a group moved in from the device that held
// it at the previous launch (home holds everything at first).
struct TwinsHoldingData {
  std::unique_ptr<Scheduler> s =
      make_scheduler("auto", std::vector<DeviceInfo>(2, DeviceInfo{"gpu", true, 132, 1980}), SchedulerOptions{});
  LaunchKey key;
  std::vector<unsigned> holder = std::vector<unsigned>(100, 0);
  explicit TwinsHoldingData(const std::string& kernel) {
    key.kernel = kernel;
    key.global[0] = 100 * 64;
    key.local[0] = 64;
  }
  // The chunk run (kernel seconds times `slower`) and what it moved in.
  ChunkTiming run(const Chunk& ch, double slower = 1) {
    uint64_t moved = 0;
    for (uint64_t g = ch.first_group; g < ch.first_group + ch.group_count; ++g)
      moved += holder[g] != ch.device, holder[g] = ch.device;
    return ChunkTiming{ch, 1e-4 * double(ch.group_count) * slower, 1e-4 * double(moved)};
  }
  void report(const LaunchPlan& plan, const std::vector<ChunkTiming>& timings) {
    s->report(key, timings);
    for (const Chunk& p : plan.probes()) s->report_probe(key, {p, 1e-4 * double(p.group_count), 0});
  }
};

// A split tried again after a whole stretch moves its slices' data once.
// Judged with those moves, every try lost (mandelbrot over 4 H100 + CPU,
// session 8: 6.6 ms against 4.3 ms whole where the split ran 2.0 ms a
// launch, given up at each try); judged without them, the split stays.
TEST(NoRegret, ASplitTriedAgainIsNotJudgedByTheDataItMovedOnce) {
  TwinsHoldingData twins("moves_once");
  unsigned split_launches = 0, declined_at = 0;
  for (unsigned launch = 0; launch < 250; ++launch) {
    std::unique_ptr<LaunchPlan> plan = twins.s->plan(twins.key, 100);
    std::vector<ChunkTiming> timings;
    const bool split = plan->whole_device() == std::nullopt;
    if (split && declined_at == 0 && launch >= 150) {
      // The runtime declines a split once (its moves would not pay back,
      // as owner computes judged them): whole on home, whose next launches
      // the scheduler plans whole for a while.
      twins.s->split_declined(twins.key);
      declined_at = launch;
      timings.push_back(twins.run({0, 0, 100}));
    } else {
      for (unsigned d = 0; d < 2; ++d)
        while (std::optional<Chunk> ch = plan->next(d)) timings.push_back(twins.run(*ch));
      if (launch >= 200) split_launches += split;
    }
    twins.report(*plan, timings);
  }
  EXPECT_GT(declined_at, 0u);
  EXPECT_GE(split_launches, 45u);
}

// After a hiccup the solver moves a few groups; their moves, counted as the
// receiving device's time, made it look slower, the next step gave them
// back, and the split swapped 4 of 100 groups back and forth at every launch,
// paying their moves each time (8 % of the launch). Balanced on what recurs,
// it settles.
TEST(NoRegret, ASplitDoesNotSwapGroupsBackAndForthOverTheirMoves) {
  TwinsHoldingData twins("swaps");
  unsigned moving_launches = 0;
  for (unsigned launch = 0; launch < 100; ++launch) {
    std::unique_ptr<LaunchPlan> plan = twins.s->plan(twins.key, 100);
    std::vector<ChunkTiming> timings;
    bool moved_any = false;
    for (unsigned d = 0; d < 2; ++d)
      while (std::optional<Chunk> ch = plan->next(d)) {
        timings.push_back(twins.run(*ch, launch == 5 && d == 0 ? 3 : 1));  // home 3x slower once
        moved_any = moved_any || timings.back().transfer_seconds > 0;
      }
    twins.report(*plan, timings);
    if (launch >= 20) moving_launches += moved_any;
  }
  EXPECT_LE(moving_launches, 2u);
}

// Issue 26: GPUs of other hosts (PoCL-Remote) are priced by what their
// sub-kernels measurably cost, network included: over a fast network they
// take their share (unknown devices, so explored within the 2 % budget
// first: probes cost more than a launch's allowance, and the split starts
// at launch 50-150 depending on noise; within 5 % of the optimum after),
// over a slow one the work stays on the app's GPU.
TEST(NoRegret, RemoteDevicesTakeWorkOnlyWhereTheNetworkLetsTheSplitWin) {
  for (uint64_t seed : {1u, 2u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::vector<LaunchResult> fast = run(model_named("remote-fast"), 300, seed);
    EXPECT_LE(run_totals(fast).vs_home(), 0.7);
    EXPECT_LE(run_totals(fast, 150).vs_optimal(), 1.05);
    const std::vector<LaunchResult> slow = run(model_named("remote-slow"), 300, seed);
    EXPECT_LE(run_totals(slow).vs_home(), 1.02);
    // Nor at first, beyond the start allowance: the remote GPUs carry the
    // local one's name, but they are no twins of it (taken for twins, they
    // get an even split at launch 2: 1.04 over these 30 launches).
    EXPECT_LE(run_totals(slow, 0, 30).vs_home(), 1.03);
  }
}

// The first launch of a key is the native launch on home, measured (what
// any split must beat); devices identical to home share evenly from the
// second launch on.
TEST(NoRegret, FirstLaunchRunsWholeOnHomeAndIdenticalDevicesShareFromTheSecond) {
  for (const std::string& name : regret_model_names()) {
    SCOPED_TRACE(name);
    Model model = model_named(name);
    std::vector<LaunchResult> results = run(model, 2);
    EXPECT_EQ(results[0].whole_device.value_or(99), model.home);
    if (name == "ratio-1") {
      EXPECT_FALSE(results[1].whole_device);
      EXPECT_EQ(results[1].groups[0], results[1].groups[1]);
    }
  }
}

TEST(NoRegret, ProbesAreWellFormedAndNeverBesideRealWork) {
  for (const std::string& name : regret_model_names()) {
    SCOPED_TRACE(name);
    unsigned probes = 0;
    for (const LaunchResult& r : run(model_named(name), 60)) {
      EXPECT_TRUE(r.probes_valid) << "launch " << r.launch;
      EXPECT_TRUE(r.covered_exactly_once) << "launch " << r.launch;
      probes += unsigned(r.probes.size());
    }
    // Other devices are only learned through probes (identical devices
    // share from the first launch and need none).
    if (name != "ratio-1") {
      EXPECT_GT(probes, 0u);
    }
  }
}

TEST(NoRegret, ProbeStagingStaysWithinTheBudget) {
  for (const std::string& name : regret_model_names()) {
    SCOPED_TRACE(name);
    std::vector<LaunchResult> results = run(model_named(name), 300);
    double staging = 0, total = 0;
    for (const LaunchResult& r : results) {
      staging += r.staging;
      total += r.true_makespan;
    }
    // 2 % of the run plus the start allowance (a quarter of a launch) and
    // one probe of overdraft.
    EXPECT_LE(staging, 0.02 * total + 0.5 * results[0].true_makespan);
  }
}

TEST(NoRegret, ZeroBudgetMeansNoProbesAndHomeAlone) {
  SchedulerOptions options;
  options.explore_budget = 0;
  for (const LaunchResult& r : run(model_named("ratio-3"), 30, 1, options)) {
    EXPECT_TRUE(r.probes.empty());
    EXPECT_EQ(r.whole_device.value_or(99), 0u);
  }
}

// First launch (>= from) whose split differs from launch from-1's by more
// than 1 % of the groups (a move to whole counts).
unsigned first_move(const std::vector<LaunchResult>& results, unsigned from) {
  const LaunchResult& before = results[from - 1];
  for (unsigned i = from; i < results.size(); ++i) {
    const LaunchResult& r = results[i];
    if (r.whole_device != before.whole_device) return i;
    for (size_t d = 0; d < r.groups.size(); ++d) {
      double change = std::fabs(double(r.groups[d]) - double(before.groups[d]));
      if (change > 0.01 * double(r.groups[d] + before.groups[d]) / 2 + 1) return i;
    }
  }
  return unsigned(results.size());
}

TEST(NoRegret, SplitMovesWithinThreeLaunchesOfALoadStep) {
  for (const char* name : {"step-1.6", "step-3", "step-helper-3"}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE(std::string(name) + " seed " + std::to_string(seed));
      Model model = model_named(name);
      unsigned step = 0;
      for (const DeviceModel& d : model.devices) step = std::max(step, d.step_at);
      ASSERT_GT(step, 10u);
      std::vector<LaunchResult> results = run(model, 60, seed);
      // Settled before the step: split and balanced.
      ASSERT_FALSE(results[step - 1].whole_device);
      EXPECT_LE(results[step - 1].over_optimal(), 0.05);
      // The step launch runs the old split; the next launches must move it.
      EXPECT_LE(first_move(results, step + 1), step + 3);
      // And the run is back within 5 % of the optimum soon after.
      EXPECT_LE(run_totals(results, step + 6).vs_optimal(), 1.05);
    }
  }
}

TEST(NoRegret, AConvergedSplitIsNotHeldByTheCliffGuardAfterTheHelperSlowsDown) {
  // A converged split, then the helper gets 3x slower for good: no bisection
  // between two nearly equal splits; within a few launches the run is near
  // the new optimum again (split or whole).
  Model model = model_named("ratio-3");
  std::unique_ptr<Scheduler> s = make_scheduler("auto", device_infos(model), SchedulerOptions{});
  SimulationOptions sim;
  sim.launches = 30;
  ASSERT_LE(simulate(*s, model, sim).back().over_optimal(), 0.05);
  model.devices[1].seconds_per_group *= 3;
  std::vector<LaunchResult> after = simulate(*s, model, sim);
  EXPECT_LE(run_totals(after, 4).vs_optimal(), 1.05);
}

TEST(NoRegret, WarmStartVerifiesAStoredSplitBeforeUsingIt) {
  char pattern[] = "/tmp/libsplit-noregret-XXXXXX";
  ASSERT_TRUE(mkdtemp(pattern));
  SchedulerOptions options;
  options.warm_start_dir = std::string(pattern) + "/sched";
  Model model = model_named("ratio-3");
  std::vector<LaunchResult> cold = run(model, 30, 1, options);
  ASSERT_FALSE(cold.back().whole_device);
  std::vector<LaunchResult> warm = run(model, 30, 2, options);
  // Launch 0: whole on home while the stored slice is probed.
  EXPECT_EQ(warm[0].whole_device.value_or(99), model.home);
  ASSERT_EQ(warm[0].probes.size(), 1u);
  EXPECT_GT(warm[0].probes[0].chunk.group_count, model.numgroups / 8);
  // Then split at once: sooner than the cold run.
  EXPECT_LE(launches_to_reach(warm, 0.05), 3u);
  EXPECT_LT(launches_to_reach(warm, 0.05), launches_to_reach(cold, 0.05));
  std::filesystem::remove_all(pattern);
}

// A device identical to home never gets a whole launch, even when its
// measurements come out 20 % faster (noise, or a neighbour's load on home):
// moving a whole launch moves all its data, and twins cannot really differ.
// Splits here lose (each slice pays a fixed transfer), so the scheduler
// keeps choosing between whole launches. Without the twin rule, device 1
// wins them.
TEST(NoRegret, AnIdenticalDeviceIsNeverChosenForAWholeLaunch) {
  for (bool identical : {true, false}) {
    SCOPED_TRACE(identical ? "identical" : "different names");
    std::vector<DeviceInfo> devices(2, DeviceInfo{"gpu", true, 132, 1980});
    if (!identical) devices[1].name = "other gpu";
    // Explicit options: no warm-start store from the environment (a decision
    // stored by an earlier run would replace the first launches).
    std::unique_ptr<Scheduler> s = make_scheduler("auto", devices, SchedulerOptions{});
    ASSERT_TRUE(s);
    LaunchKey key;
    key.kernel = "k";
    key.global[0] = 1 << 20;
    key.local[0] = 256;
    key.home = 0;
    const uint64_t groups = key.global[0] / key.local[0];
    auto seconds = [](unsigned device, uint64_t n) { return n * (device == 1 ? 0.8e-6 : 1e-6); };
    unsigned whole_on_1 = 0;
    for (int launch = 0; launch < 80; ++launch) {
      std::unique_ptr<LaunchPlan> plan = s->plan(key, groups);
      if (plan->whole_device() == std::optional<unsigned>(1)) ++whole_on_1;
      std::vector<ChunkTiming> timings;
      std::vector<Chunk> chunks;
      for (unsigned d = 0; d < 2; ++d)
        while (std::optional<Chunk> c = plan->next(d)) chunks.push_back(*c);
      const bool split = chunks.size() > 1;
      for (const Chunk& c : chunks)
        timings.push_back({c, seconds(c.device, c.group_count), split ? 5e-3 : 0.0});
      s->report(key, timings);
      for (const Chunk& p : plan->probes()) s->report_probe(key, {p, seconds(p.device, p.group_count), 0});
    }
    if (identical) EXPECT_EQ(whole_on_1, 0u);
    else EXPECT_GT(whole_on_1, 0u) << "the test no longer reaches the whole-elsewhere choice";
  }
}

// `auto` on two identical GPUs (home 0), one key of `groups` work-groups,
// driven by hand: each launch's chunks (drained from the plan) go to
// `run`, which returns their timings (it may tell the scheduler more, as
// the runtime does); probes are reported with `probe_seconds`. Returns
// whether each launch was split.
struct TwinLaunch {
  int index;
  LaunchPlan& plan;
  const LaunchKey& key;
  std::vector<Chunk> chunks;
  bool split() const { return chunks.size() > 1; }
};

std::vector<bool> run_twins(uint64_t groups, int launches,
                            const std::function<std::vector<ChunkTiming>(Scheduler&, TwinLaunch&)>& run,
                            double probe_seconds = 0,
                            std::vector<DeviceInfo> devices = std::vector<DeviceInfo>(2, DeviceInfo{"gpu", true, 132, 1980})) {
  // Explicit options: no warm-start store from the environment (a decision
  // stored by an earlier run would replace the first launches).
  std::unique_ptr<Scheduler> s = make_scheduler("auto", devices, SchedulerOptions{});
  EXPECT_TRUE(s);
  LaunchKey key;
  key.kernel = "k";
  key.global[0] = groups * 16;
  key.local[0] = 16;
  std::vector<bool> split_at;
  for (int launch = 0; launch < launches; ++launch) {
    std::unique_ptr<LaunchPlan> plan = s->plan(key, groups);
    TwinLaunch l{launch, *plan, key, {}};
    for (unsigned d = 0; d < devices.size(); ++d)
      while (std::optional<Chunk> ch = plan->next(d)) l.chunks.push_back(*ch);
    split_at.push_back(l.split());
    s->report(key, run(*s, l));
    for (const Chunk& p : plan->probes()) s->report_probe(key, {p, probe_seconds, 1e-6});
  }
  return split_at;
}

// Twins split evenly from the second launch; the second device's first slice
// stages an input it keeps. matmul on 2 H200: 20 ms of staging next to a
// 10 ms slice, paid back by the split in two launches: the split must go on
// at once; only a transfer that recurs at the next split launch sends the
// key back to whole. A 0.15 ms stencil that staged 151 MB (18 ms) would
// need hundreds of launches to pay it back: back to whole at once.
TEST(NoRegret, FirstSplitStagingCountsOnlyWhereTheSplitCannotPayItBack) {
  struct Case {
    const char* what;
    double whole_seconds, staging_seconds;
    bool recurs;
    bool split_after;  // launches 3 and 4 split
  };
  for (const Case& c : {Case{"matmul, staging once", 21e-3, 20e-3, false, true},
                        Case{"matmul, staging recurs", 21e-3, 20e-3, true, false},
                        Case{"stencil, staging once", 0.15e-3, 18e-3, false, false}}) {
    SCOPED_TRACE(c.what);
    const uint64_t groups = 256;
    std::vector<bool> split_at = run_twins(groups, 5, [&](Scheduler&, TwinLaunch& l) {
      const bool staging_now = l.index == 1 || c.recurs;
      std::vector<ChunkTiming> timings;
      for (const Chunk& ch : l.chunks) {
        const double kernel = c.whole_seconds * double(ch.group_count) / double(groups);
        const bool stages = ch.device == 1 && l.split() && staging_now;
        timings.push_back({ch, kernel, stages ? c.staging_seconds : 1e-6});
      }
      return timings;
    });
    ASSERT_FALSE(split_at[0]) << "the first launch is whole on home";
    ASSERT_TRUE(split_at[1]) << "twins split from the second launch";
    EXPECT_EQ(bool(split_at[2]), c.split_after || c.recurs);
    EXPECT_EQ(bool(split_at[3] && split_at[4]), c.split_after);
  }
}

// Twins split on trust; a split whose halves take as long as the whole
// launch (nbody on 2 H200: the groups run in one wave either way) goes back
// to whole after its first launch, and is not retried while whole is known.
TEST(NoRegret, TrustedTwinSplitWithoutGainGoesBackToWhole) {
  std::vector<std::string> why;  // LaunchPlan::why_whole, launch by launch
  std::vector<bool> split_at = run_twins(512, 20, [&](Scheduler&, TwinLaunch& l) {
    why.push_back(l.plan.why_whole());
    std::vector<ChunkTiming> timings;
    for (const Chunk& ch : l.chunks) timings.push_back({ch, l.split() ? 3.58e-3 : 3.53e-3, 1e-6});
    return timings;
  }, 3.58e-3);
  EXPECT_TRUE(split_at[1]) << "twins are tried";
  EXPECT_FALSE(split_at[2]);
  EXPECT_EQ(std::count(split_at.begin(), split_at.end(), true), 1);
  // The launch log says why the later launches run whole.
  EXPECT_EQ(why[0], "") << "whole before any split: nothing given up";
  for (int i = 2; i < 20; ++i)
    EXPECT_EQ(why[i].rfind("its split showed no gain: 3.581 ms against 3.530 ms whole", 0), 0u) << i << ": " << why[i];
  EXPECT_NE(why[2].find("; no split before its launch"), std::string::npos) << why[2];
}

// A split given up once (here a one-off move at its fourth launch) comes
// back where each whole launch keeps moving data in: 2mm over 4 GPUs + CPU,
// mm_tc went whole while mm_ab stayed split, and every whole mm_tc first
// fetched the half of its input the other GPU had written (3.1 ms kernel +
// 2.0 ms). Judged by its kernel alone, whole looked cheaper than the split
// that had lost, and mm_tc never split again.
TEST(NoRegret, ASplitComesBackWhereWholeLaunchesKeepMovingData) {
  std::vector<bool> split_at = run_twins(128, 40, [](Scheduler&, TwinLaunch& l) {
    std::vector<ChunkTiming> timings;
    if (!l.split()) {
      timings.push_back({l.chunks[0], 3.15e-3, 2.0e-3});  // whole: the other half comes back first
      return timings;
    }
    for (const Chunk& ch : l.chunks)
      timings.push_back({ch, 1.6e-3, l.index == 3 && ch.device == 0 ? 2.5e-3 : 0.0});
    return timings;
  });
  ASSERT_TRUE(split_at[1] && split_at[2] && split_at[3]) << "twins split from the second launch";
  EXPECT_FALSE(split_at[4]) << "the fourth split lost to whole (the one-off move)";
  const long later = std::count(split_at.begin() + 20, split_at.end(), true);
  EXPECT_EQ(later, 20) << "split again, and kept, well before the last 20 launches";
}

// One key, three roles in a cycle (3mm: E = A.B, F = C.D, G = E.F, the same
// kernel and shape, other buffers): the third launch of each cycle gathers
// what the second wrote, and its split loses alone (3.80 ms against 3.14 ms
// whole on 2 H100), while the cycle gains (1.60 + 1.60 + 3.80 ms against
// 3 x 3.14). Judged launch by launch, the split went back to whole at its
// first gather, for good. A cycle whose gather costs more than the two
// others gain goes back, and so do the same times in one role.
TEST(NoRegret, ASplitIsJudgedOverTheCycleOfItsKeysRoles) {
  const std::vector<DeviceInfo> twins(2, DeviceInfo{"gpu", true, 132, 1980});
  constexpr uint64_t kGroups = 128;
  // first_staging: what the second device moves in at the first split
  // launch of the role that splits last (3mm's F first staged half of C and
  // D, 33 MB, at the key's second split launch).
  auto split_launches = [&](double gather, bool roles, double first_staging = 0) {
    std::unique_ptr<Scheduler> s = make_scheduler("auto", twins, SchedulerOptions{});
    LaunchKey key{"matmul", 1, {kGroups * 16, 1, 1}, {16, 1, 1}, 0};
    long split = 0;
    std::vector<uint64_t> staged;
    for (int launch = 0; launch < 120; ++launch) {
      key.role = roles ? uint64_t(launch % 3) + 1 : 1;
      std::unique_ptr<LaunchPlan> plan = s->plan(key, kGroups);
      std::vector<Chunk> chunks;
      for (unsigned d = 0; d < 2; ++d)
        while (std::optional<Chunk> c = plan->next(d)) chunks.push_back(*c);
      const bool stages = chunks.size() > 1 && key.role == 1 && std::find(staged.begin(), staged.end(), key.role) == staged.end();
      if (stages) staged.push_back(key.role);
      std::vector<ChunkTiming> timings;
      for (const Chunk& c : chunks) {
        const double moves = (launch % 3 == 2 ? gather : 0.0) + (stages && c.device == 1 ? first_staging : 0.0);
        timings.push_back(chunks.size() == 1 ? ChunkTiming{c, 3.14e-3, 0.0} : ChunkTiming{c, 1.6e-3, moves});
      }
      s->report(key, timings);
      if (launch >= 20 && chunks.size() > 1) ++split;
    }
    return split;
  };
  EXPECT_GE(split_launches(2.2e-3, true), 95) << "a split whose cycle gains 25 % went back to whole";
  EXPECT_LE(split_launches(5.5e-3, true), 20) << "a split whose cycle loses kept splitting";
  EXPECT_LE(split_launches(2.2e-3, false), 20) << "a loss in one role excused";
  EXPECT_GE(split_launches(2.2e-3, true, 6e-3), 95) << "a role's first staging taken for a recurring move";
}

// The same on a node of 4 twins and a CPU (nbody on 4 H100 + a Xeon split
// 21 of 30 launches 25/25/25/25, 1.21x slower: a quarter of its 512 groups
// takes as long as all of them, one wave either way). Probes of any size
// take the whole time too; the CPU is 30x slower per group.
TEST(NoRegret, OneWaveKernelOnFourTwinsAndACpuStaysWhole) {
  std::vector<DeviceInfo> devices(4, DeviceInfo{"gpu", true, 132, 1980});
  devices.push_back(DeviceInfo{"cpu", false, 64, 2000, true});
  const uint64_t groups = 512;
  const double wave = 3.6e-3;
  auto seconds = [&](const Chunk& ch) {
    return ch.device == 4 ? 30 * wave * double(ch.group_count) / double(groups) : wave;
  };
  std::vector<bool> split_at = run_twins(groups, 30, [&](Scheduler&, TwinLaunch& l) {
    std::vector<ChunkTiming> timings;
    for (const Chunk& ch : l.chunks) timings.push_back({ch, seconds(ch), 1e-6});
    return timings;
  }, wave, devices);
  EXPECT_LE(std::count(split_at.begin(), split_at.end(), true), 2) << "launches split out of 30";
}

// 4 twins of which only home is open at first (the others open in the
// background, one after the other, as on 4 H100): launches split over the
// devices already open, never plan a device that is not, and take each
// device in as it opens, up to the even split over all four.
TEST(NoRegret, SplitsUseTheDevicesOpenSoFarAndTakeInEachAsItOpens) {
  std::vector<DeviceInfo> devices(4, DeviceInfo{"gpu", true, 132, 1980});
  const uint64_t groups = 256;
  const double whole = 21e-3;  // matmul on one H100: the split pays
  std::vector<unsigned> used_at;  // devices of each launch
  std::vector<bool> ready(4, false);
  ready[0] = true;
  run_twins(groups, 16, [&](Scheduler& s, TwinLaunch& l) {
    std::vector<ChunkTiming> timings;
    unsigned used = 0;
    for (const Chunk& ch : l.chunks) {
      EXPECT_TRUE(ready[ch.device]) << "launch " << l.index << " planned device " << ch.device << " not open";
      timings.push_back({ch, whole * double(ch.group_count) / double(groups), 1e-6});
      ++used;
    }
    used_at.push_back(used);
    // Device d opens after launch 2 d: the next plan may use it.
    for (unsigned d = 1; d < 4; ++d) ready[d] = ready[d] || l.index >= int(2 * d);
    s.set_ready(ready);
    return timings;
  }, 0, devices);
  ASSERT_EQ(used_at.size(), 16u);
  EXPECT_EQ(used_at[0], 1u) << "the first launch is whole on home";
  EXPECT_EQ(used_at[3], 2u) << "split with the first device that opened";
  EXPECT_EQ(used_at[5], 3u);
  EXPECT_EQ(used_at[7], 4u);
  EXPECT_EQ(used_at[15], 4u) << "stays on all four";
}

// A device that joins a running split (4 twins, home and dev1 open, dev2
// opening during the run): the split grows over it even though its first
// launch moves data between all of them (the shares change: one-off, as on
// 4 H100 where gemm's first 3-way split staged 44 MB and went back to whole
// for the rest of the run); where the grown split loses (dev2's slices are
// slow), it goes back to the split it grew from, not to whole.
TEST(NoRegret, ASplitGrowsOverAJoiningDeviceAndFallsBackToItsOldSplitIfThatLoses) {
  std::vector<DeviceInfo> devices(4, DeviceInfo{"gpu", true, 132, 1980});
  const uint64_t groups = 128;
  const double whole = 3.15e-3;  // gemm on one H100
  for (bool dev2_slow : {false, true}) {
    SCOPED_TRACE(dev2_slow ? "dev2 slow" : "dev2 as fast");
    std::vector<bool> ready{true, true, false, false};
    std::vector<unsigned> used_at;
    bool grown_once = false;
    run_twins(groups, 30, [&](Scheduler& s, TwinLaunch& l) {
      std::vector<ChunkTiming> timings;
      const bool grown = l.chunks.size() == 3;
      for (const Chunk& ch : l.chunks) {
        double kernel = whole * double(ch.group_count) / double(groups);
        if (dev2_slow && ch.device == 2) kernel = 2 * whole;
        const double staging = grown && !grown_once ? 10e-3 : 1e-6;
        timings.push_back({ch, kernel, staging});
      }
      grown_once = grown_once || grown;
      used_at.push_back(unsigned(l.chunks.size()));
      ready[2] = ready[2] || l.index >= 8;
      s.set_ready(ready);
      return timings;
    }, 0, devices);
    EXPECT_EQ(used_at[5], 2u) << "split over the two open devices";
    EXPECT_TRUE(grown_once) << "the split grew over dev2";
    // Grown at launch 9 (dev2 ready after launch 8); from then on 3 devices,
    // or back to the 2 it grew from.
    ASSERT_EQ(used_at[9], 3u);
    EXPECT_EQ(std::count(used_at.begin() + 10, used_at.end(), dev2_slow ? 2u : 3u), 20);
  }
}

// A split the runtime declined (its data movement would not pay back) is
// blocked like a lost one, and twins are offered again afterwards with a
// larger allowance (the key has run more launches).
TEST(NoRegret, DeclinedTwinSplitIsRetriedWithAGrowingAllowance) {
  const uint64_t groups = 256;
  std::vector<double> allowances;  // of the split plans, in order
  std::vector<std::string> why;     // LaunchPlan::why_whole, launch by launch
  std::vector<bool> split_at = run_twins(groups, 24, [&](Scheduler& s, TwinLaunch& l) {
    why.push_back(l.plan.why_whole());
    if (l.split()) {
      allowances.push_back(l.plan.staging_allowance());
      s.split_declined(l.key);  // the runtime runs it whole on home

      return std::vector<ChunkTiming>{{Chunk{0, 0, groups}, 0.15e-3, 0}};
    }
    return std::vector<ChunkTiming>{{l.chunks[0], 0.15e-3, 0}};
  });
  EXPECT_FALSE(split_at[0]);
  EXPECT_TRUE(split_at[1]);
  EXPECT_FALSE(split_at[2]) << "blocked after the decline";
  EXPECT_EQ(why[2].rfind("the runtime declined its split", 0), 0u) << why[2];
  ASSERT_GE(allowances.size(), 3u);
  for (size_t i = 1; i < allowances.size(); ++i) EXPECT_GE(allowances[i], allowances[i - 1]);
  EXPECT_GT(allowances.back(), 2 * allowances.front());
}

// Drives the scheduler by hand on noise-free devices (seconds per group at
// each launch; dev0 = home; a chunk also costs kChunkOverhead): every
// launch's chunks and probes are timed at once. Returns the groups dev0 ran
// at each launch.
constexpr double kChunkOverhead = 1e-4;
// `touched`, when given, adds up the groups each device ran or probed.
std::vector<uint64_t> drive(Scheduler& s, uint64_t numgroups, unsigned launches,
                            const std::function<std::vector<double>(unsigned)>& rates,
                            std::vector<uint64_t>* touched = nullptr) {
  const LaunchKey key{"hand_driven", 1, {numgroups * 64, 1, 1}, {64, 1, 1}, 0};
  std::vector<uint64_t> dev0;
  for (unsigned launch = 0; launch < launches; ++launch) {
    const std::vector<double> rate = rates(launch);
    std::unique_ptr<LaunchPlan> plan = s.plan(key, numgroups);
    std::vector<ChunkTiming> timings;
    uint64_t on_dev0 = 0;
    for (unsigned d = 0; d < rate.size(); ++d)
      while (std::optional<Chunk> c = plan->next(d)) {
        timings.push_back({*c, kChunkOverhead + rate[d] * double(c->group_count), 0});
        if (d == 0) on_dev0 += c->group_count;
        if (touched) touched->at(d) += c->group_count;
      }
    for (const Chunk& p : plan->probes()) {
      s.report_probe(key, {p, kChunkOverhead + rate[p.device] * double(p.group_count), 0});
      if (touched) touched->at(p.device) += p.group_count;
    }
    if (plan->wants_report()) s.report(key, timings);
    dev0.push_back(on_dev0);
  }
  return dev0;
}

TEST(NoRegret, AProbeReportedBeforeItsLaunchIsNotTakenForUseless) {
  // drive() reports probes before the launch they ran beside, as the
  // runtime does when a one-group probe ends before a whole launch: with no
  // whole time to compare with, the probe once made the other device look
  // useless (re-probed 32 launches later) although it is half as fast as home.
  std::vector<uint64_t> home = drive(*make_scheduler("auto", {{"home", false}, {"other", false}},
                                                     SchedulerOptions{}),
                                     1024, 12, [](unsigned) { return std::vector<double>{1e-5, 2e-5}; });
  EXPECT_NEAR(double(home.back()), 1024 * 2.0 / 3.0, 0.02 * 1024);
}

TEST(NoRegret, ALoadStepThatComesWithAMoveIsFollowedNotBisected) {
  // Home is 2x faster; at launch 12 the other device gets 1.3x slower and
  // the solver grows home's slice. At the first launch where it grew by more
  // than 5 %, home gets 4x slower: a larger slice that got slower is what a
  // cliff looks like to the cliff guard. One launch back at the old split
  // shows home slow there too: a load step, which the solver must follow
  // (home's share 2.6 / 6.6) instead of bisecting for 6 launches.
  constexpr uint64_t kGroups = 1024;
  constexpr unsigned kOtherSlows = 12;
  auto quiet_rates = [&](unsigned launch) {
    return std::vector<double>{1e-5, launch >= kOtherSlows ? 2.6e-5 : 2e-5};
  };
  const std::vector<DeviceInfo> devices{{"home", false}, {"other", false}};
  std::vector<uint64_t> quiet = drive(*make_scheduler("auto", devices, SchedulerOptions{}), kGroups,
                                      30, quiet_rates);
  unsigned step = 0;
  for (unsigned i = kOtherSlows + 1; i < quiet.size() && !step; ++i)
    if (quiet[i - 1] > 0 && quiet[i] < kGroups && double(quiet[i]) > 1.05 * double(quiet[i - 1]))
      step = i;
  std::string seen;
  for (uint64_t g : quiet) seen += " " + std::to_string(g);
  ASSERT_GT(step, 0u) << "the split never grew home's slice by 5 %:" << seen;
  std::vector<uint64_t> loaded =
      drive(*make_scheduler("auto", devices, SchedulerOptions{}), kGroups, step + 8,
            [&](unsigned launch) {
              std::vector<double> r = quiet_rates(launch);
              if (launch >= step) r[0] = 4e-5;
              return r;
            });
  ASSERT_EQ(loaded[step], quiet[step]) << seen;  // the step launch ran the grown slice
  std::string after;
  for (unsigned i = step - 1; i < loaded.size(); ++i) after += " " + std::to_string(loaded[i]);
  const double balanced = kGroups * 2.6 / 6.6;
  EXPECT_NEAR(double(loaded[step + 3]), balanced, 0.05 * kGroups) << "from the launch before the step:" << after;
  EXPECT_NEAR(double(loaded[step + 7]), balanced, 0.02 * kGroups) << "from the launch before the step:" << after;
}

// A split of short launches whose plan stopped changing is measured one
// launch in kMeasureEvery: reading 4 sub-kernels' times cost the app's
// thread ~23 us a launch on 4 H100, more than such a launch can spare. A
// load step still moves the split within a few launches of the next
// measured one; a long split is measured at every launch.
TEST(NoRegret, ASettledSplitOfShortLaunchesIsMeasuredOnlySometimes) {
  const std::vector<DeviceInfo> twins(2, DeviceInfo{"gpu", true, 132, 1980});
  constexpr uint64_t kGroups = 256;
  constexpr unsigned kStep = 120, kLaunches = 160;
  const LaunchKey key{"short_split", 1, {kGroups * 64, 1, 1}, {64, 1, 1}, 0};
  for (const double per_group : {1e-6, 1e-4}) {  // whole: 0.36 ms, then 25.7 ms
    SCOPED_TRACE("seconds per group " + std::to_string(per_group));
    std::unique_ptr<Scheduler> s = make_scheduler("auto", twins, SchedulerOptions{});
    unsigned reported_before_step = 0;
    std::vector<uint64_t> home_groups;
    for (unsigned launch = 0; launch < kLaunches; ++launch) {
      // At kStep the second device gets 3x slower.
      const double other = launch >= kStep ? 3 * per_group : per_group;
      std::unique_ptr<LaunchPlan> plan = s->plan(key, kGroups);
      std::vector<ChunkTiming> timings;
      uint64_t home = 0;
      for (unsigned d = 0; d < 2; ++d)
        while (std::optional<Chunk> c = plan->next(d)) {
          timings.push_back({*c, kChunkOverhead + (d == 0 ? per_group : other) * double(c->group_count), 0});
          if (d == 0) home += c->group_count;
        }
      for (const Chunk& p : plan->probes()) s->report_probe(key, {p, kChunkOverhead + per_group * double(p.group_count), 0});
      if (plan->wants_report()) {
        s->report(key, timings);
        if (launch >= 40 && launch < kStep) ++reported_before_step;
      }
      home_groups.push_back(home);
    }
    ASSERT_GT(home_groups[kStep - 1], 0u);
    ASSERT_LT(home_groups[kStep - 1], kGroups) << "split before the step";
    if (per_group < 1e-5)
      EXPECT_LE(reported_before_step, (kStep - 40) / 8 + 2) << "a settled short split measured at every launch";
    else
      EXPECT_EQ(reported_before_step, kStep - 40) << "a long split left unmeasured";
    unsigned moved = kLaunches;
    for (unsigned i = kStep; i < kLaunches && moved == kLaunches; ++i)
      if (double(home_groups[i]) > 1.1 * double(home_groups[kStep - 1])) moved = i;
    EXPECT_LE(moved, kStep + 8 + 3) << "the load step was not followed";
  }
}

// Twins rebalance by the jitter of their times (ep on 2 H200: 2050 / 2046,
// then 2041 / 2055 of 4096 groups), moves of a few groups that owner
// computes does not execute: such a split is settled too, measured one
// launch in kMeasureEvery (every launch was, ~17 us of the app's thread
// each on 4 H100).
TEST(NoRegret, ASplitWhosePlanMovesOnlyByJitterIsSettled) {
  const std::vector<DeviceInfo> twins(2, DeviceInfo{"gpu", true, 132, 1980});
  constexpr uint64_t kGroups = 4096;
  const LaunchKey key{"jittery_twins", 1, {kGroups * 64, 1, 1}, {64, 1, 1}, 0};
  std::unique_ptr<Scheduler> s = make_scheduler("auto", twins, SchedulerOptions{});
  unsigned reported = 0, split = 0;
  for (unsigned launch = 0; launch < 300; ++launch) {
    std::unique_ptr<LaunchPlan> plan = s->plan(key, kGroups);
    std::vector<ChunkTiming> timings;
    for (unsigned d = 0; d < 2; ++d)
      while (std::optional<Chunk> c = plan->next(d)) {
        const double jitter = double((launch * 7 + d) % 5) * 1e-6;  // 0-4 us
        timings.push_back({*c, 1.2e-3 * double(c->group_count) / double(kGroups) + jitter, 0});
      }
    for (const Chunk& p : plan->probes()) s->report_probe(key, {p, 1.2e-3 * double(p.group_count) / double(kGroups), 0});
    split += timings.size() > 1;
    if (launch >= 100 && plan->wants_report()) ++reported;
    if (plan->wants_report()) s->report(key, timings);
  }
  EXPECT_GE(split, 250u) << "the twins did not split";
  EXPECT_LE(reported, 200u / 8 + 4) << "a split moving by jitter only was measured at every launch";
}

// An app that waits for each launch leaves the devices idle for the host's
// round trip; a split lengthens it (its enqueue, the waits on several
// devices). mandelbrot medium on 2 H100, clFinish after each 0.18 ms
// launch: halves of 0.09 ms, devices idle ~0.1 ms more than before a whole
// launch, the loop 1.10-1.14x slower than natively. Such a split loses; the
// same split of an app whose own host work leaves the devices idle 2 ms
// before every launch, split or whole, wins.
TEST(NoRegret, ASplitIsJudgedWithTheIdleTimeItAddsBeforeItsLaunches) {
  const std::vector<DeviceInfo> twins(2, DeviceInfo{"gpu", true, 132, 1980});
  constexpr uint64_t kGroups = 384;
  const LaunchKey key{"mandelbrot", 2, {kGroups * 256, 1, 1}, {256, 1, 1}, 0};
  auto split_launches = [&](double whole_idle, double split_idle) {
    std::unique_ptr<Scheduler> s = make_scheduler("auto", twins, SchedulerOptions{});
    unsigned split = 0;
    for (unsigned launch = 0; launch < 200; ++launch) {
      std::unique_ptr<LaunchPlan> plan = s->plan(key, kGroups);
      std::vector<ChunkTiming> timings;
      for (unsigned d = 0; d < 2; ++d)
        while (std::optional<Chunk> c = plan->next(d)) timings.push_back({*c, 0.18e-3 * double(c->group_count) / kGroups, 0});
      const bool is_split = timings.size() > 1;
      for (ChunkTiming& t : timings) t.idle_before = is_split ? split_idle : whole_idle;
      for (const Chunk& p : plan->probes()) s->report_probe(key, {p, 0.18e-3 * double(p.group_count) / kGroups, 0});
      if (plan->wants_report()) s->report(key, timings);
      if (launch >= 40 && is_split) ++split;
    }
    return split;
  };
  EXPECT_LE(split_launches(15e-6, 110e-6), 20u) << "a split that adds more idle time than it saves kept splitting";
  EXPECT_GE(split_launches(2e-3, 2.01e-3), 150u) << "the app's own idle time charged to the split";
  EXPECT_GE(split_launches(-1, -1), 150u) << "idle times unknown: judged on the kernels";
}

// Devices on the host's cores share those cores: PoCL's pthread and basic
// devices on 2 cores made apps 1.25-1.67x slower under auto, a probe or a
// slice on one taking cores from the app's launch on the other. So auto
// uses at most one of them: beside a GPU home the strongest (most compute
// units x clock); none beside a home that is one of them.
TEST(NoRegret, DevicesOnTheHostCoresCountAsOne) {
  const std::vector<DeviceInfo> devices{{"gpu", true, 132, 1980, false},
                                        {"basic", false, 1, 2000, true},
                                        {"pthread", false, 16, 2000, true}};
  auto rates = [](unsigned) { return std::vector<double>{1e-5, 2e-5, 2e-5}; };
  for (bool shared : {true, false}) {
    SCOPED_TRACE(shared ? "LIBSPLIT_HOST_DEVICES=one" : "=all");
    SchedulerOptions options;
    options.host_devices_share_cores = shared;
    std::vector<uint64_t> touched(3, 0);
    std::vector<uint64_t> home = drive(*make_scheduler("auto", devices, options), 1024, 40, rates, &touched);
    EXPECT_LT(home.back(), 1024u) << "the GPU home splits with a CPU device";
    EXPECT_GT(touched[2], 0u) << "the stronger CPU device helps";
    if (shared) EXPECT_EQ(touched[1], 0u) << "the weaker one shares its cores: never probed nor used";
    else EXPECT_GT(touched[1], 0u) << "counted as its own hardware";
  }
  // Home on the host's cores: the other such device is never touched; the
  // GPU still helps.
  const std::vector<DeviceInfo> cpus{devices[2], devices[1], devices[0]};
  std::vector<uint64_t> touched(3, 0);
  drive(*make_scheduler("auto", cpus, SchedulerOptions{}), 1024, 40,
        [](unsigned) { return std::vector<double>{2e-5, 2e-5, 1e-5}; }, &touched);
  EXPECT_EQ(touched[1], 0u);
  EXPECT_GT(touched[2], 0u);
}

TEST(NoRegret, OnlyHostCoreDevicesMeansTheAppsDeviceAlone) {
  const DeviceInfo gpu{"gpu", true, 132, 1980, false}, pthread{"pthread", false, 2, 2000, true},
      basic{"basic", false, 1, 2000, true};
  SchedulerOptions all;
  all.host_devices_share_cores = false;
  EXPECT_FALSE(make_scheduler("auto", {pthread, basic}, SchedulerOptions{})->may_use_several_devices());
  EXPECT_TRUE(make_scheduler("auto", {pthread, basic}, all)->may_use_several_devices());
  EXPECT_TRUE(make_scheduler("auto", {gpu, pthread, basic}, SchedulerOptions{})->may_use_several_devices());
  EXPECT_TRUE(make_scheduler("auto", {gpu, gpu}, SchedulerOptions{})->may_use_several_devices());
  // Forced schedulers use every device.
  EXPECT_TRUE(make_scheduler("uniform", {pthread, basic}, SchedulerOptions{})->may_use_several_devices());
  // Only uniform and static keep the user's shares.
  for (const char* name : {"uniform", "static"})
    EXPECT_TRUE(make_scheduler(name, {pthread, basic}, SchedulerOptions{})->fixed_shares()) << name;
  for (const char* name : {"auto", "broyden", "fixedpoint", "adaptive", "dynamic"})
    EXPECT_FALSE(make_scheduler(name, {pthread, basic}, SchedulerOptions{})->fixed_shares()) << name;
  // And driven anyway, auto keeps every launch whole on home, unprobed.
  std::vector<uint64_t> touched(2, 0);
  std::vector<uint64_t> home = drive(*make_scheduler("auto", {pthread, basic}, SchedulerOptions{}), 1024, 30,
                                     [](unsigned) { return std::vector<double>{2e-5, 1e-5}; }, &touched);
  EXPECT_EQ(touched[1], 0u);
  EXPECT_EQ(*std::min_element(home.begin(), home.end()), 1024u);
}

TEST(NoRegret, ExplorationBudgetIsObservable) {
  Model model = model_named("ratio-3");
  NoRegretScheduler s(device_infos(model), SchedulerOptions{});
  SimulationOptions sim;
  sim.launches = 20;
  sim.key.home = model.home;
  simulate(s, model, sim);
  LaunchKey key = sim.key;
  key.global[0] = model.numgroups * key.local[0];
  NoRegretScheduler::Budget budget = s.exploration_budget(key);
  EXPECT_GT(budget.spent, 0);
  EXPECT_GT(budget.allowed, budget.spent * 0.5);
}

TEST(NoRegret, ConcurrentPlansReportsAndProbesFromManyThreads) {
  Model model = model_named("ratio-3");
  NoRegretScheduler s(device_infos(model), SchedulerOptions{});
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      LaunchKey key{"k" + std::to_string(t % 3), 1, {4096 * 64, 1, 1}, {64, 1, 1}, 0, 0};
      for (int launch = 0; launch < 50; ++launch) {
        std::unique_ptr<LaunchPlan> plan = s.plan(key, 4096);
        std::vector<ChunkTiming> timings;
        for (unsigned d = 0; d < 2; ++d)
          while (std::optional<Chunk> c = plan->next(d))
            timings.push_back({*c, 1e-6 * double(c->group_count) * (d ? 3 : 1), 0});
        s.report(key, timings);
        for (const Chunk& probe : plan->probes())
          s.report_probe(key, {probe, 3e-6 * double(probe.group_count), 1e-6});
      }
    });
  for (std::thread& t : threads) t.join();
  SUCCEED();
}

}  // namespace
}  // namespace libsplit::sched::sim

