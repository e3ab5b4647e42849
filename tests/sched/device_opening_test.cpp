// When the default scheduler asks for the devices outside the app's context
// (Scheduler::devices_wanted): opening one costs the app (on 4 H100 a GPU
// opens in 130-215 ms, the driver slows the app's calls meanwhile and tears
// the context down at exit), so a run too short to pay for it must not open
// it, a long one must, and a decision stored by an earlier run decides at
// once.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "no_regret_scheduler.h"

namespace libsplit::sched {
namespace {

const std::vector<DeviceInfo> kFourGpus(4, DeviceInfo{"gpu", true, 132, 1980});

LaunchKey key_named(const std::string& kernel, uint64_t groups) {
  LaunchKey key;
  key.kernel = kernel;
  key.global[0] = groups * 64;
  key.local[0] = 64;
  return key;
}

// The chunks a launch runs as: those the plan hands out, or its one chunk
// in two halves where the plan asks for them (LaunchPlan::halves_on_home).
std::vector<Chunk> chunks_of(LaunchPlan& plan) {
  std::vector<Chunk> chunks;
  for (unsigned d = 0; d < kFourGpus.size(); ++d)
    while (std::optional<Chunk> ch = plan.next(d)) chunks.push_back(*ch);
  if (plan.halves_on_home() && chunks.size() == 1) {
    const Chunk whole = chunks[0];
    const uint64_t half = whole.group_count / 2;
    chunks = {{whole.device, 0, half}, {whole.device, half, whole.group_count - half}};
  }
  return chunks;
}

// One launch of `key`, whole on home (no other device is ready), reported
// with `seconds` (its halves, if asked, with half_seconds each: by default
// half of it, a kernel whose time follows its work); returns
// devices_wanted() after it.
unsigned launch_whole(Scheduler& s, const LaunchKey& key, uint64_t groups, double seconds,
                      double half_seconds = -1, int* halves_asked = nullptr) {
  std::unique_ptr<LaunchPlan> plan = s.plan(key, groups);
  std::vector<ChunkTiming> timings;
  for (const Chunk& ch : chunks_of(*plan))
    timings.push_back({ch, plan->halves_on_home() ? (half_seconds >= 0 ? half_seconds : seconds / 2) : seconds, 1e-6});
  EXPECT_EQ(timings.size(), plan->halves_on_home() ? 2u : 1u) << "whole while the others are closed";
  if (halves_asked) *halves_asked += plan->halves_on_home();
  s.report(key, timings);
  return s.devices_wanted();
}

// One launch of `key` as planned over whichever devices the plan uses, each
// chunk taking seconds(chunk); probes reported as taking probe_seconds.
void launch_planned(Scheduler& s, const LaunchKey& key, uint64_t groups,
                    const std::function<double(const Chunk&)>& seconds, double probe_seconds) {
  std::unique_ptr<LaunchPlan> plan = s.plan(key, groups);
  std::vector<ChunkTiming> timings;
  for (const Chunk& ch : chunks_of(*plan)) timings.push_back({ch, seconds(ch), 1e-6});
  s.report(key, timings);
  for (const Chunk& p : plan->probes()) s.report_probe(key, {p, probe_seconds, 1e-6});
}

// A warm-start store in a fresh temporary folder, removed at the end.
struct TempStore {
  char path[32] = "/tmp/libsplit-opening-XXXXXX";
  SchedulerOptions options;
  TempStore() {
    EXPECT_TRUE(mkdtemp(path));
    options.warm_start_dir = std::string(path) + "/sched";
  }
  ~TempStore() { std::filesystem::remove_all(path); }
};

std::unique_ptr<Scheduler> closed_four(SchedulerOptions options = {}) {
  std::unique_ptr<Scheduler> s = make_scheduler("auto", kFourGpus, options);
  s->set_ready({true, false, false, false});
  return s;
}

// ep on one H100: 1.2 ms launches, the app's context took 150 ms to open.
// 100 launches (120 ms) never pay for a device; the 126th launch has run
// as long as an opening costs.
TEST(DeviceOpening, TheFirstOtherDeviceOpensOnceTheLaunchesRanAsLongAsAnOpeningCosts) {
  std::unique_ptr<Scheduler> s = closed_four();
  s->set_opening_cost(0.150);
  const LaunchKey key = key_named("ep", 4096);
  unsigned first_wanted = 0;
  for (unsigned i = 1; i <= 200 && !first_wanted; ++i)
    if (launch_whole(*s, key, 4096, 1.2e-3) >= 1) first_wanted = i;
  // The first launch has no measurement yet: it counts nothing.
  EXPECT_GE(first_wanted, 126u);
  EXPECT_LE(first_wanted, 128u);
  EXPECT_EQ(s->devices_wanted(), 1u) << "the rest wait for a split that wins";
}

// nbody on 4 H100: 512 groups in one wave, a quarter of them took as long
// as all (3.6 ms). Before its launches make a device open, they run once in
// two halves on home; each half takes the whole time, so no split can gain:
// no device opens however long the run, the key never splits, and the next
// run knows it (stored whole after a lost split) without halves. A kernel
// whose halves take half the time each (matmul) opens the first device at
// the next launch.
TEST(DeviceOpening, AKernelWhoseHalvesTakeTheWholeTimeOpensNothing) {
  TempStore store;
  const uint64_t groups = 512;
  const LaunchKey one_wave = key_named("nbody", groups), dense = key_named("matmul", groups);
  {
    std::unique_ptr<Scheduler> s = closed_four(store.options);
    s->set_opening_cost(0.120);
    int halves = 0;
    for (int i = 0; i < 300; ++i)
      EXPECT_EQ(launch_whole(*s, one_wave, groups, 3.6e-3, 3.6e-3, &halves), 0u) << "launch " << i;
    EXPECT_EQ(halves, 1) << "halves asked once";
    std::unique_ptr<LaunchPlan> plan = s->plan(one_wave, groups);
    EXPECT_EQ(plan->why_whole(), "its halves on device 0 took 3.600 ms and 3.600 ms against 3.600 ms whole (one wave)");
    // Every device open now (another key's doing): it still never splits.
    s->set_ready({true, true, true, true});
    for (int i = 0; i < 50; ++i) {
      std::unique_ptr<LaunchPlan> p = s->plan(one_wave, groups);
      ASSERT_TRUE(p->whole_device()) << "launch " << i << " split";
      EXPECT_TRUE(p->probes().empty());
      s->report(one_wave, {{{0, 0, groups}, 3.6e-3, 1e-6}});
    }
  }
  {
    std::unique_ptr<Scheduler> s = closed_four(store.options);
    s->set_opening_cost(0.120);
    int halves = 0;
    for (int i = 0; i < 300; ++i) launch_whole(*s, one_wave, groups, 3.6e-3, 3.6e-3, &halves);
    EXPECT_EQ(s->devices_wanted(), 0u);
    EXPECT_EQ(halves, 0) << "the stored verdict needs no halves";
  }
  {
    std::unique_ptr<Scheduler> s = closed_four(store.options);
    s->set_opening_cost(0.120);
    int halves = 0;
    unsigned first_wanted = 0;
    for (unsigned i = 1; i <= 20 && !first_wanted; ++i)
      if (launch_whole(*s, dense, groups, 20e-3, 10e-3, &halves) >= 1) first_wanted = i;
    EXPECT_EQ(halves, 1);
    EXPECT_EQ(first_wanted, 8u) << "launches 2-7 count 120 ms (the first is not measured yet): the 7th runs in halves";
  }
}

// While no other device is ready, whole launches are measured one in
// kMeasureEvery even when long (ep: 1.2 ms): an event per launch only costs
// the app then. Once another device is ready, every long launch is.
TEST(DeviceOpening, LongLaunchesAloneOnHomeAreMeasuredOnlySometimes) {
  std::unique_ptr<Scheduler> s = closed_four();
  s->set_opening_cost(10.0);  // nothing opens in this test
  const LaunchKey key = key_named("ep", 4096);
  auto reported = [&](int launches) {
    int n = 0;
    for (int i = 0; i < launches; ++i) {
      std::unique_ptr<LaunchPlan> plan = s->plan(key, 4096);
      std::vector<ChunkTiming> timings;
      for (unsigned d = 0; d < kFourGpus.size(); ++d)
        while (std::optional<Chunk> ch = plan->next(d)) timings.push_back({*ch, 1.2e-3, 1e-6});
      if (!plan->wants_report()) continue;
      s->report(key, timings);
      ++n;
    }
    return n;
  };
  reported(40);  // the noise of home becomes known
  EXPECT_LE(reported(80), 12) << "alone on home: sampled";
  s->set_ready({true, true, false, false});
  reported(8);
  EXPECT_GE(reported(80), 70) << "another device ready: every long launch measured";
}

// Several keys add up: what a split could share is the launches' time,
// whatever kernel they run.
TEST(DeviceOpening, LaunchesOfDifferentKernelsCountTogether) {
  std::unique_ptr<Scheduler> s = closed_four();
  s->set_opening_cost(0.010);
  const LaunchKey a = key_named("a", 512), b = key_named("b", 512);
  unsigned launches = 0;
  while (s->devices_wanted() == 0 && launches < 100) {
    launch_whole(*s, a, 512, 1e-3);
    launch_whole(*s, b, 512, 1e-3);
    launches += 2;
  }
  EXPECT_LE(launches, 14u);  // 5 ms each side, + the two unmeasured first launches
  EXPECT_GE(launches, 10u);
}

// Unknown cost (no context timed, e.g. a scheduler driven by hand): the
// first launch asks, as before opening had a price.
TEST(DeviceOpening, WithoutAnOpeningCostTheFirstLaunchAsks) {
  std::unique_ptr<Scheduler> s = closed_four();
  EXPECT_EQ(s->devices_wanted(), 0u);
  EXPECT_GE(launch_whole(*s, key_named("k", 256), 256, 1e-3), 1u);
}

// A warm run: the previous run stored its decision per key. A key stored as
// a split (it paid off) asks for every device at its first launch; a key
// stored whole on home after its split lost (nbody's one-wave kernel) never
// asks, however long it runs; a key stored whole by a run that never opened
// another device (ep, too short) counts as if new.
TEST(DeviceOpening, AStoredSplitOpensEverythingAtOnceAndAStoredWholeNothing) {
  TempStore store;
  const SchedulerOptions& options = store.options;
  const uint64_t groups = 512;
  const LaunchKey dense = key_named("matmul", groups), one_wave = key_named("nbody", groups),
                  short_run = key_named("ep", groups);
  {
    // A run too short to open anything: ep stored whole, untried.
    std::unique_ptr<Scheduler> s = closed_four(options);
    s->set_opening_cost(0.150);
    for (int i = 0; i < 100; ++i) launch_whole(*s, short_run, groups, 1.2e-3);
    ASSERT_EQ(s->devices_wanted(), 0u);
  }
  {
    // The earlier run, every device open: matmul's halves take half the
    // time, nbody's as long as the whole launch.
    std::unique_ptr<Scheduler> s = make_scheduler("auto", kFourGpus, options);
    for (int i = 0; i < 30; ++i) {
      launch_planned(*s, dense, groups, [&](const Chunk& ch) { return 20e-3 * double(ch.group_count) / double(groups); }, 3.6e-3);
      launch_planned(*s, one_wave, groups, [](const Chunk&) { return 3.6e-3; }, 3.6e-3);
    }
  }
  {
    std::unique_ptr<Scheduler> s = closed_four(options);
    s->set_opening_cost(0.150);
    for (int i = 0; i < 200; ++i) launch_whole(*s, one_wave, groups, 3.6e-3);
    EXPECT_EQ(s->devices_wanted(), 0u) << "720 ms of a kernel stored whole opened a device";
    for (int i = 0; i < 130; ++i) launch_whole(*s, short_run, groups, 1.2e-3);
    EXPECT_EQ(s->devices_wanted(), 1u) << "a key stored whole untried counts toward opening";
    launch_whole(*s, dense, groups, 20e-3);
    EXPECT_EQ(s->devices_wanted(), kAllGroups) << "a stored split wants every device at once";
  }
}

// Per command: a run of a command whose earlier run split with gain wants
// every device before its first launch (its context opens them all, as
// LIBSPLIT_OPEN_DEVICES=start would); another command does not; a run of it
// whose openings did not pay makes the next ones open nothing.
TEST(DeviceOpening, ACommandWhoseEarlierRunSplitOpensEverythingAtItsFirstContext) {
  TempStore store;
  const SchedulerOptions& options = store.options;
  const uint64_t groups = 512;
  const LaunchKey dense = key_named("matmul", groups);
  auto run = [&](const std::string& command, bool split_pays, unsigned* wanted_at_start,
                 double opening_cost = 0.01) {
    std::unique_ptr<Scheduler> s = make_scheduler("auto", kFourGpus, options);
    s->set_opening_cost(opening_cost);
    s->set_app(command);
    *wanted_at_start = s->devices_wanted();
    for (int i = 0; i < 20; ++i)
      launch_planned(*s, dense, groups, [&](const Chunk& ch) {
        return split_pays ? 20e-3 * double(ch.group_count) / double(groups) : 20e-3;
      }, 20e-3);
    s->end_run();
  };
  unsigned at_start = 99;
  run("./matmul --iters 100", true, &at_start);
  EXPECT_EQ(at_start, 0u) << "nothing known yet";
  run("./matmul --iters 100", true, &at_start);
  EXPECT_EQ(at_start, kAllGroups) << "the earlier run split with gain";
  run("./ep --iters 100", false, &at_start);
  EXPECT_EQ(at_start, 0u) << "another command";
  // Splits that saved less than opening the three others costs (20
  // launches saving 15 ms each against 3 x 150 ms): not remembered.
  run("./3mm --iters 100", true, &at_start, 0.150);
  run("./3mm --iters 100", true, &at_start, 0.150);
  EXPECT_EQ(at_start, 0u) << "a gain below the cost of opening every device";
  // The keys' stored splits gone (the command's memory kept): this run's
  // kernels never split with gain.
  for (const auto& entry : std::filesystem::directory_iterator(options.warm_start_dir))
    if (entry.path().filename().string().rfind("app-", 0) != 0) std::filesystem::remove(entry.path());
  run("./matmul --iters 100", false, &at_start);
  EXPECT_EQ(at_start, kAllGroups);
  run("./matmul --iters 100", false, &at_start);
  EXPECT_EQ(at_start, 0u) << "the run before did not split with gain";
  // Nor on demand: a command whose openings did not pay opens nothing in
  // its next runs, however long their launches and whatever its keys'
  // stored splits say (gemm on 4 H100: 35 ms saved, +207 ms of wall time).
  std::unique_ptr<Scheduler> s = closed_four(options);
  s->set_opening_cost(0.150);
  s->set_app("./3mm --iters 100");
  int halves = 0;
  const LaunchKey fresh = key_named("mm_fresh", groups);  // nothing stored: it would ask
  for (int i = 0; i < 100; ++i) launch_whole(*s, fresh, groups, 20e-3, -1, &halves);
  EXPECT_EQ(s->devices_wanted(), 0u) << "a command whose openings lost opened a device";
  EXPECT_EQ(halves, 0) << "halves decide an opening: none where nothing opens";
  // A run that opened nothing keeps the verdict.
  s->end_run();
  std::unique_ptr<Scheduler> next = closed_four(options);
  next->set_app("./3mm --iters 100");
  EXPECT_EQ(next->devices_wanted(), 0u);
  launch_whole(*next, dense, groups, 20e-3);
  EXPECT_EQ(next->devices_wanted(), 0u);
}

// A run whose devices opened on demand split only its last launches; the
// verdict counts the gain per split launch over all of the key's launches,
// as the next run opens every device at its first context (mandelbrot on
// 2 H200: 32 of 100 launches split, 65 ms saved for one 117 ms opening,
// 2.1 ms a launch). Openings are priced as told per group of devices: a CPU
// platform that opens in milliseconds does not count as one more GPU.
TEST(DeviceOpening, AnOpeningIsJudgedAsIfTheDevicesHadBeenOpenFromTheStart) {
  const uint64_t groups = 512;
  const LaunchKey key = key_named("mandelbrot", groups);
  // 100 launches of 20 ms, the devices ready from launch `ready_at` on;
  // returns what the next run of the command wants at its start.
  // From launch `declined_from` on, the runtime refuses every split for its
  // moves (Scheduler::split_declined) and runs it whole.
  auto verdict = [&](const SchedulerOptions& options, const std::vector<double>& openings, int ready_at,
                     int declined_from = 1000) {
    std::unique_ptr<Scheduler> s = closed_four(options);
    s->set_opening_cost(0.300);
    s->set_openings(openings);
    s->set_app("./mandelbrot --iters 100");
    auto slice = [&](const Chunk& ch) { return 20e-3 * double(ch.group_count) / double(groups); };
    for (int i = 0; i < 100; ++i) {
      if (i == ready_at) s->set_ready({true, true, true, true});
      if (i < declined_from) {
        launch_planned(*s, key, groups, slice, 20e-3 / 8);
        continue;
      }
      std::unique_ptr<LaunchPlan> plan = s->plan(key, groups);
      std::vector<ChunkTiming> timings;
      for (unsigned d = 0; d < kFourGpus.size(); ++d)
        while (std::optional<Chunk> ch = plan->next(d)) timings.push_back({*ch, slice(*ch), 1e-6});
      if (timings.size() > 1) {
        s->split_declined(key);
        timings = {{Chunk{0, 0, groups}, 20e-3, 0}};
      }
      s->report(key, timings);
      for (const Chunk& p : plan->probes()) s->report_probe(key, {p, 20e-3 / 8, 1e-6});
    }
    s->end_run();
    std::unique_ptr<Scheduler> next = closed_four(options);
    next->set_app("./mandelbrot --iters 100");
    return next->devices_wanted();
  };
  {
    // ~35 split launches save ~15 ms each (~0.5 s measured, ~1.5 s over
    // 100 launches) against 3 x 0.3 s of openings.
    TempStore store;
    EXPECT_EQ(verdict(store.options, {0.3, 0.3, 0.3}, 65), kAllGroups) << "judged on the launches that split only";
  }
  {
    // The same gain against openings of 3 x 0.6 s does not pay.
    TempStore store;
    EXPECT_EQ(verdict(store.options, {0.6, 0.6, 0.6}, 65), 0u);
  }
  {
    // Unopened groups priced by set_opening_cost when none are told: 3 x 0.3 s.
    TempStore store;
    EXPECT_EQ(verdict(store.options, {}, 65), kAllGroups);
  }
  {
    // One costly GPU and two groups that open in milliseconds.
    TempStore store;
    EXPECT_EQ(verdict(store.options, {1.2, 0.001, 0.001}, 65), kAllGroups);
  }
  {
    // Splits that won for a few launches, then were refused: only what they
    // saved counts, not as if the launches before them had split too.
    TempStore store;
    EXPECT_EQ(verdict(store.options, {0.2, 0.2, 0.2}, 50, 62), 0u) << "a few early splits taken as a promise";
  }
  // Devices that opened too late for any split (gemm on 2 H200: a 325 ms
  // loop) tell nothing: the next run opens them at its start, once, and its
  // splits decide.
  for (const double each : {0.3, 0.6}) {
    TempStore store;
    EXPECT_EQ(verdict(store.options, {each, each, each}, 1000), kAllGroups) << "no split: to be tried";
    TempStore late;
    EXPECT_EQ(verdict(late.options, {each, each, each}, 98), kAllGroups) << "a split or two: to be tried";
    const unsigned after = verdict(store.options, {each, each, each}, 0);
    if (each == 0.3) EXPECT_EQ(after, kAllGroups) << "~1.5 s saved against 0.9 s of openings";
    else EXPECT_EQ(after, 0u) << "~1.5 s saved against 1.8 s of openings";
  }
}

// The devices of a first run join one at a time (the driver opens GPUs one
// after the other), so its splits are measured over 1, 2, then 3 groups of
// devices outside the app's context. The next run opens only as many as
// paid most beyond their cost (2mm on 4 H100: 1.63x with one more GPU,
// whole with three, whose openings cost more than the two last saved), and
// no more on demand.
TEST(DeviceOpening, TheVerdictKeepsTheGroupsThatPaidForThemselves) {
  const uint64_t groups = 512;
  const LaunchKey key = key_named("mm2", groups);
  // 100 launches of 20 ms; the other GPUs ready from the launches in
  // `ready_at` (10, 40, 70: one after the other).
  auto first_run = [&](const SchedulerOptions& options, const std::vector<double>& openings,
                       std::vector<int> ready_at = {10, 40, 70}) {
    std::unique_ptr<Scheduler> s = closed_four(options);
    s->set_opening_cost(openings[0]);
    s->set_openings(openings);
    s->set_app("./2mm --iters 100");
    auto slice = [&](const Chunk& ch) { return 20e-3 * double(ch.group_count) / double(groups); };
    std::vector<bool> ready = {true, false, false, false};
    for (int i = 0; i < 100; ++i) {
      for (size_t g = 0; g < ready_at.size(); ++g)
        if (i == ready_at[g]) ready[g + 1] = true, s->set_ready(ready);
      launch_planned(*s, key, groups, slice, 20e-3 / 8);
    }
    s->end_run();
  };
  auto wanted_next = [&](const SchedulerOptions& options) {
    std::unique_ptr<Scheduler> next = closed_four(options);
    next->set_app("./2mm --iters 100");
    return next->devices_wanted();
  };
  {
    // ~10 ms saved a launch over 2 GPUs, ~13 over 3, ~15 over 4: 1.0, 1.3
    // and 1.5 s over 100 launches, against 0.1, 0.6 and 1.1 s of openings.
    TempStore store;
    first_run(store.options, {0.1, 0.5, 0.5});
    EXPECT_EQ(wanted_next(store.options), 1u) << "the first GPU paid most beyond its cost";
    // That run wins its split over the two GPUs and asks for no more.
    std::unique_ptr<Scheduler> s = closed_four(store.options);
    s->set_opening_cost(0.1);
    s->set_app("./2mm --iters 100");
    s->set_ready({true, true, false, false});
    auto slice = [&](const Chunk& ch) { return 20e-3 * double(ch.group_count) / double(groups); };
    for (int i = 0; i < 30; ++i) launch_planned(*s, key, groups, slice, 20e-3 / 8);
    EXPECT_EQ(s->devices_wanted(), 1u) << "a split that won over the groups that paid asked for more";
    s->end_run();
    EXPECT_EQ(wanted_next(store.options), 1u) << "a run over the groups that paid keeps them";
  }
  {
    // Cheap openings: every group pays.
    TempStore store;
    first_run(store.options, {0.05, 0.05, 0.05});
    EXPECT_EQ(wanted_next(store.options), kAllGroups);
  }
  // Only the first GPU opened in time to split (~10 ms saved a launch, 1 s
  // over 100 launches): the others are tried where that pays for them all.
  {
    TempStore store;
    first_run(store.options, {0.1, 0.2, 0.2}, {10});
    EXPECT_EQ(wanted_next(store.options), kAllGroups) << "1 s measured pays for 0.5 s of openings: try them all";
  }
  {
    TempStore store;
    first_run(store.options, {0.1, 0.6, 0.6}, {10});
    EXPECT_EQ(wanted_next(store.options), 1u) << "1 s measured does not pay for 1.3 s: the group measured";
  }
}

// Told when the launches ran (set_launch_span), the verdict counts each
// group's gain over the groups before it only on the launches after it
// would join, opened at the first context (the openings one after the
// other), and prices a group that joins in time at a quarter of its
// opening (its teardown): on 4 H200 histogram and syrk gained 6-12 % with a
// GPU the whole-run count kept closed, while gemm's 215 ms loop ends
// before a third GPU could join.
TEST(DeviceOpening, TheVerdictWeighsEachGroupOnTheLaunchesAfterItWouldJoin) {
  const uint64_t groups = 512;
  const LaunchKey key = key_named("mm2", groups);
  // 100 launches of 20 ms (gains of ~10, ~13.3 and ~15 ms a launch over 1,
  // 2 and 3 groups), the groups joining at launches 10, 40 and 70; openings
  // of 0.1, 0.5 and 0.5 s. span: the first and last launch in seconds after
  // the app's context ({} : not told). Returns what the next run wants.
  auto verdict = [&](std::optional<std::pair<double, double>> span) {
    TempStore store;
    std::unique_ptr<Scheduler> s = closed_four(store.options);
    s->set_opening_cost(0.1);
    s->set_openings({0.1, 0.5, 0.5});
    s->set_app("./2mm --iters 100");
    auto slice = [&](const Chunk& ch) { return 20e-3 * double(ch.group_count) / double(groups); };
    std::vector<bool> ready = {true, false, false, false};
    for (int i = 0; i < 100; ++i) {
      for (int g = 0; g < 3; ++g)
        if (i == 10 + 30 * g) ready[g + 1] = true, s->set_ready(ready);
      launch_planned(*s, key, groups, slice, 20e-3 / 8);
    }
    if (span) s->set_launch_span(span->first, span->second);
    s->end_run();
    std::unique_ptr<Scheduler> next = closed_four(store.options);
    next->set_app("./2mm --iters 100");
    return next->devices_wanted();
  };
  // Over every launch, priced in full: 1.0 s saved for 0.1 s, then 0.33
  // and 0.17 s more for 0.5 s each: the first group only.
  EXPECT_EQ(verdict(std::nullopt), 1u);
  // A 2 s loop: the second group joins at 0.6 s, with 72 % of the launches
  // after it (0.24 s more for 0.125 s); the third at 1.1 s, 47 % after it
  // (0.08 s more for 0.125 s).
  EXPECT_EQ(verdict(std::pair{0.03, 2.03}), 2u) << "a group joining early in a long loop pays";
  // A 0.5 s loop ends before the second group could join: it would cost its
  // whole opening (the exit waits for it) and save nothing.
  EXPECT_EQ(verdict(std::pair{0.03, 0.5}), 1u);
  // A loop over before the first group could join: nothing opens.
  EXPECT_EQ(verdict(std::pair{0.01, 0.08}), 0u);
}

// 3mm on 4 H100: its splits would move 33 MB each way, so the runtime
// declines them (Scheduler::split_declined) and the key runs whole. That is
// a split that cannot pay: stored so, the next run never opens a device for
// it, nor any run after (warm runs of 3mm paid +250 ms of wall time for GPUs
// opened in vain).
// A command whose openings did not pay runs whole, then opens on demand
// again after 4 runs, after 8 more if it lost again: one misjudged run (2mm
// over 4 GPUs + CPU, charged the openings' stalls) kept it whole for good.
TEST(DeviceOpening, ALostVerdictIsTriedAgainAfterFourRunsThenEight) {
  TempStore store;
  const SchedulerOptions& options = store.options;
  const uint64_t groups = 512;
  const LaunchKey dense = key_named("mm", groups);
  const std::string command = "./3mm --iters 20";
  // Every device open; the splits save 15 ms a launch, 20 launches: less
  // than opening three GPUs at 150 ms costs.
  auto losing_run = [&] {
    std::unique_ptr<Scheduler> s = make_scheduler("auto", kFourGpus, options);
    s->set_opening_cost(0.150);
    s->set_app(command);
    const unsigned wanted = s->devices_wanted();
    for (int i = 0; i < 20; ++i)
      launch_planned(*s, dense, groups, [&](const Chunk& ch) {
        return 5e-3 + 15e-3 * double(ch.group_count) / double(groups);
      }, 20e-3);
    s->end_run();
    return wanted;
  };
  // A run as it goes under a lost verdict: nothing open, long whole launches
  // (the demand rule alone would open a device); what it asked for.
  auto closed_run = [&] {
    std::unique_ptr<Scheduler> s = closed_four(options);
    s->set_opening_cost(0.150);
    s->set_app(command);
    for (int i = 0; i < 20; ++i) launch_whole(*s, dense, groups, 20e-3);
    s->end_run();
    return s->devices_wanted();
  };
  EXPECT_EQ(losing_run(), 0u) << "nothing known yet";
  unsigned kept = 0;
  while (kept < 20 && closed_run() == 0) ++kept;
  EXPECT_EQ(kept, 3u) << "runs kept whole before the first try";
  // That try asked for devices, which (closed here) opened too late to
  // tell: the next run opens every one at its first context, and loses.
  EXPECT_EQ(losing_run(), kAllGroups);
  kept = 0;
  while (kept < 20 && closed_run() == 0) ++kept;
  EXPECT_EQ(kept, 7u) << "runs kept whole before the second try";
}

// 2mm over 4 GPUs + CPU: a run that misjudged its splits (charged the
// openings' stalls) stored its kernels whole after a lost split, and the
// command lost. A key stored so asks for no device, so the try after four
// runs must count it as untried, or the try would never open anything.
TEST(DeviceOpening, ATryAfterALostVerdictCountsKernelsStoredLostAsUntried) {
  TempStore store;
  const SchedulerOptions& options = store.options;
  const uint64_t groups = 512;
  const LaunchKey key = key_named("mm_ab", groups);
  const std::string command = "./2mm --iters 100";
  {
    // Its halves on home take half the time each, so the second GPU opens;
    // the split wins its first launches, then its slice there takes 25 ms
    // against 20 ms whole (the stall of an opening): the split loses, and
    // what it saved does not pay for the opening.
    std::unique_ptr<Scheduler> s = closed_four(options);
    s->set_opening_cost(0.150);
    s->set_app(command);
    int slices = 0;
    auto seconds = [&](const Chunk& ch) {
      if (ch.device == 0) return 20e-3 * double(ch.group_count) / double(groups);
      return ++slices <= 6 ? 10.5e-3 : 25e-3;
    };
    for (int i = 0; i < 40; ++i) {
      launch_planned(*s, key, groups, seconds, 25e-3);
      if (s->devices_wanted() > 0) s->set_ready({true, true, false, false});
    }
    s->end_run();
  }
  int kept = 0;
  for (; kept < 10; ++kept) {
    std::unique_ptr<Scheduler> s = closed_four(options);
    s->set_opening_cost(0.150);
    s->set_app(command);
    int halves = 0;
    for (int i = 0; i < 40; ++i) launch_whole(*s, key, groups, 20e-3, -1, &halves);
    s->end_run();
    if (s->devices_wanted() > 0) {
      EXPECT_EQ(halves, 1) << "the try asks the key's halves first";
      break;
    }
    EXPECT_EQ(halves, 0);
  }
  EXPECT_EQ(kept, 3) << "runs kept whole before the try";
}

TEST(DeviceOpening, AKeyWhoseSplitsWereDeclinedIsStoredAsLost) {
  TempStore store;
  const SchedulerOptions& options = store.options;
  const uint64_t groups = 512;
  const LaunchKey key = key_named("mm3", groups);
  {
    std::unique_ptr<Scheduler> s = make_scheduler("auto", kFourGpus, options);
    for (int i = 0; i < 40; ++i) {
      std::unique_ptr<LaunchPlan> plan = s->plan(key, groups);
      std::vector<ChunkTiming> timings;
      std::vector<Chunk> chunks;
      for (unsigned d = 0; d < kFourGpus.size(); ++d)
        while (std::optional<Chunk> ch = plan->next(d)) chunks.push_back(*ch);
      if (chunks.size() > 1) {  // the runtime runs it whole on home instead
        s->split_declined(key);
        Chunk whole = chunks.front();
        whole.device = 0;
        whole.first_group = 0;
        whole.group_count = groups;
        chunks = {whole};
      }
      for (const Chunk& ch : chunks) timings.push_back({ch, 3e-3, 1e-6});
      s->report(key, timings);
    }
  }
  // Every later run, not only the next: a run that opened nothing (so
  // never tried the split) keeps the verdict (3mm's warm runs alternated
  // between opening nothing and opening every GPU).
  for (int run = 0; run < 3; ++run) {
    std::unique_ptr<Scheduler> s = closed_four(options);
    s->set_opening_cost(0.010);
    for (int i = 0; i < 50; ++i) launch_whole(*s, key, groups, 3e-3);
    EXPECT_EQ(s->devices_wanted(), 0u) << "run " << run << ": a key whose splits were declined opened a device";
  }
}

}  // namespace
}  // namespace libsplit::sched
