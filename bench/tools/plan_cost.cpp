// The host time of the default scheduler's plan() per launch, on a simulated
// node of 4 identical GPUs and a CPU (no OpenCL): what LIBSPLIT_LOG=3 calls
// the "plan" stage, apart from the drivers. Scenarios:
//   lost:  an axpy whose split over the GPUs lost to whole (0.03 ms whole,
//          0.3 ms of moves per split): it runs whole from then on;
//   split: a kernel that splits evenly and stays split (8 ms whole).
// Prints microseconds per plan() and per report() (a report is the app's
// thread too: the launch after hands it over) after the first 1000
// launches, and how many launches split. On 4 H100 + CPU the lost scenario cost 13-31 us per whole
// launch before the exploration budget was checked ahead of the probe model.
#include "scheduler.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using namespace libsplit::sched;

namespace {

struct Outcome {
  double us_per_plan, us_per_report;
  long splits;
};

// seconds(device, groups) of a chunk; moves(device, groups) of a chunk in a split.
template <class Kernel, class Moves>
Outcome run(uint64_t groups, long launches, Kernel kernel, Moves moves) {
  std::vector<DeviceInfo> devices(4, DeviceInfo{"gpu", true, 132, 1980});
  DeviceInfo cpu{"cpu", false, 64, 2000};
  cpu.on_host_cores = true;
  devices.push_back(cpu);
  std::unique_ptr<Scheduler> s = make_scheduler("auto", devices, SchedulerOptions{});
  LaunchKey key;
  key.kernel = "k";
  key.global[0] = groups * 256;
  key.local[0] = 256;
  double planning = 0, reporting = 0;
  long timed = 0, reports = 0, splits = 0;
  for (long launch = 0; launch < launches; ++launch) {
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<LaunchPlan> plan = s->plan(key, groups);
    const auto t1 = std::chrono::steady_clock::now();
    if (launch >= 1000) planning += std::chrono::duration<double>(t1 - t0).count(), ++timed;
    std::vector<ChunkTiming> timings;
    for (unsigned d = 0; d < devices.size(); ++d)
      while (std::optional<Chunk> c = plan->next(d)) timings.push_back({*c, kernel(d, c->group_count), 0});
    if (timings.size() > 1) {
      ++splits;
      for (ChunkTiming& t : timings) t.transfer_seconds = moves(t.chunk.device, t.chunk.group_count);
    }
    for (const Chunk& p : plan->probes())
      s->report_probe(key, {p, kernel(p.device, p.group_count) + 5e-6, moves(p.device, p.group_count)});
    if (!plan->wants_report()) continue;
    const auto t2 = std::chrono::steady_clock::now();
    s->report(key, timings);
    if (launch >= 1000)
      reporting += std::chrono::duration<double>(std::chrono::steady_clock::now() - t2).count(), ++reports;
  }
  return {timed ? planning / double(timed) * 1e6 : 0, reports ? reporting / double(reports) * 1e6 : 0, splits};
}

}  // namespace

int main(int argc, char** argv) {
  const long launches = argc > 1 ? atol(argv[1]) : 6000;
  if (launches <= 1000) {
    fprintf(stderr, "usage: %s [LAUNCHES > 1000]\n", argv[0]);
    return 2;
  }
  setenv("LIBSPLIT_WARMSTART", "0", 1);  // nothing from earlier runs
  const uint64_t axpy = 16384;
  Outcome lost = run(
      axpy, launches, [&](unsigned d, uint64_t g) { return 0.033e-3 * double(g) / double(axpy) * (d == 4 ? 30 : 1); },
      [](unsigned, uint64_t) { return 0.3e-3; });
  const uint64_t mm = 1024;
  Outcome split = run(
      mm, launches, [&](unsigned d, uint64_t g) { return 8e-3 * double(g) / double(mm) * (d == 4 ? 30 : 1); },
      [](unsigned, uint64_t) { return 0.0; });
  for (const auto& [name, o] : {std::pair{"lost ", lost}, std::pair{"split", split}})
    printf("%s: %.2f us per plan, %.2f us per report, %ld of %ld launches split\n", name, o.us_per_plan,
           o.us_per_report, o.splits, launches);
  return 0;
}
