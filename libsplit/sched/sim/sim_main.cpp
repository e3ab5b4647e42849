// libsplit-sim: run a scheduler on a simulated device model and print its
// iterations, a trace, or a comparison table of all schedulers.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "device_model.h"
#include "simulate.h"
#include "trace.h"

using namespace libsplit::sched;
using namespace libsplit::sched::sim;

namespace {

const char* kUsage =
    "usage: libsplit-sim [--scheduler NAME] [--model NAME] [--devices N] [--launches K]\n"
    "                    [--seed S] [--trace FILE] [--warmstart DIR] [--no-whole]\n"
    "       libsplit-sim --table [--launches K]\n"
    "       libsplit-sim --list\n";

const char* kSchedulers[] = {"uniform", "static",  "fixedpoint", "broyden", "dynamic",
                             "hguided", "autotune", "adaptive", "auto"};
// Columns of the total-time table.
const char* kRegretSchedulers[] = {"auto", "adaptive", "broyden", "autotune"};

std::unique_ptr<Scheduler> build(const std::string& name, const Model& model,
                                 const SchedulerOptions& options) {
  std::string error;
  std::unique_ptr<Scheduler> scheduler = make_scheduler(name, device_infos(model), options, &error);
  if (!scheduler) std::cerr << "libsplit-sim: " << error << '\n';
  return scheduler;
}

void print_iterations(const Model& model, const std::vector<LaunchResult>& results,
                      std::string_view scheduler) {
  std::printf("model %s: %s\nscheduler %.*s, %llu groups, %zu devices\n", model.name.c_str(),
              model.description.c_str(), int(scheduler.size()), scheduler.data(),
              static_cast<unsigned long long>(model.numgroups), model.devices.size());
  for (const LaunchResult& r : results) {
    std::printf("launch %2u %-8s", r.launch,
                r.whole_device ? ("whole" + std::to_string(*r.whole_device)).c_str() : "split");
    std::printf(" x=[");
    for (size_t d = 0; d < r.groups.size(); ++d)
      std::printf("%s%.4f", d ? " " : "", double(r.groups[d]) / double(model.numgroups));
    std::printf("] ms=[");
    for (size_t d = 0; d < r.device_seconds.size(); ++d)
      std::printf("%s%.3f", d ? " " : "", r.device_seconds[d] * 1e3);
    std::printf("] makespan %.3f ms optimal %.3f ms  +%.1f%%%s", r.true_makespan * 1e3,
                r.optimal * 1e3, 100 * r.over_optimal(), r.covered_exactly_once ? "" : "  BAD COVER");
    for (const ChunkTiming& p : r.probes)
      std::printf("  probe d%u:%llu", p.chunk.device, static_cast<unsigned long long>(p.chunk.group_count));
    if (r.budget_spent) std::printf("  (exploration budget spent)");
    if (!r.probes_valid) std::printf("  BAD PROBE");
    std::printf("\n");
  }
  RunTotals totals = run_totals(results);
  std::printf("total %.3f ms = %.3f x optimal, %.3f x home alone\n", totals.total * 1e3,
              totals.vs_optimal(), totals.vs_home());
  unsigned reached = launches_to_reach(results, 0.05);
  if (reached)
    std::printf("within 5%% of optimal at launch %u\n", reached);
  else
    std::printf("never within 5%% of optimal\n");
}

int print_table(unsigned launches) {
  SchedulerOptions options;  // no environment, no warm start
  std::vector<std::string> models = model_names();
  std::printf("Launches until the makespan is within 5%% of the optimum (1 = first launch; "
              "'-' = not within %u launches).\n\n| scheduler |",
              launches);
  for (const std::string& m : models) std::printf(" %s |", m.c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < models.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const char* name : kSchedulers) {
    std::printf("| %s |", name);
    for (const std::string& model_name : models) {
      Model model;
      make_model(model_name, 0, &model, nullptr);
      std::unique_ptr<Scheduler> scheduler = build(name, model, options);
      if (!scheduler) return 1;
      SimulationOptions sim;
      sim.launches = launches;
      unsigned reached = launches_to_reach(simulate(*scheduler, model, sim), 0.05);
      if (reached)
        std::printf(" %u |", reached);
      else
        std::printf(" - |");
    }
    std::printf("\n");
  }
  // Tracking quality: mean and worst excess over the optimum after warm-up.
  const unsigned tracking_launches = 60, warmup = 8;
  std::printf("\nMean / worst %% over the optimum, launches %u..%u (tracking; all models):\n\n"
              "| scheduler |",
              warmup + 1, tracking_launches);
  for (const std::string& m : models) std::printf(" %s |", m.c_str());
  std::printf("\n|---|");
  for (size_t i = 0; i < models.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const char* name : kSchedulers) {
    std::printf("| %s |", name);
    for (const std::string& model_name : models) {
      Model model;
      make_model(model_name, 0, &model, nullptr);
      std::unique_ptr<Scheduler> scheduler = build(name, model, options);
      SimulationOptions sim;
      sim.launches = tracking_launches;
      std::vector<LaunchResult> results = simulate(*scheduler, model, sim);
      double sum = 0, worst = 0;
      for (unsigned i = warmup; i < results.size(); ++i) {
        sum += results[i].over_optimal();
        worst = std::max(worst, results[i].over_optimal());
      }
      std::printf(" %.1f / %.0f |", 100 * sum / double(results.size() - warmup), 100 * worst);
    }
    std::printf("\n");
  }
  return 0;
}

// What users feel: total run time vs the per-launch optimum and vs home alone.
int print_regret_table() {
  SchedulerOptions options;  // no environment, no warm start
  std::printf("\nTotal time of the run (sum of launch makespans, probe staging and waits "
              "included), as 'x optimum / x home alone'; optimum = per-launch best of the "
              "oracle split and every single device; home = the app's own device.\n\n"
              "| model | launches |");
  for (const char* name : kRegretSchedulers) std::printf(" %s |", name);
  std::printf("\n|---|---|");
  for (size_t i = 0; i < std::size(kRegretSchedulers); ++i) std::printf("---|");
  std::printf("\n");
  for (const std::string& model_name : regret_model_names()) {
    for (unsigned launches : {30u, 300u}) {
      Model model;
      make_model(model_name, 0, &model, nullptr);
      std::printf("| %s | %u |", model_name.c_str(), launches);
      for (const char* name : kRegretSchedulers) {
        std::unique_ptr<Scheduler> scheduler = build(name, model, options);
        if (!scheduler) return 1;
        SimulationOptions sim;
        sim.launches = launches;
        RunTotals totals = run_totals(simulate(*scheduler, model, sim));
        std::printf(" %.3f / %.3f |", totals.vs_optimal(), totals.vs_home());
      }
      std::printf("\n");
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string scheduler_name, model_name = "hetero3", trace_path;
  unsigned devices = 0, launches = 10;
  uint64_t seed = 1;
  bool table = false;
  SchedulerOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::cerr << "libsplit-sim: " << arg << " needs a value\n" << kUsage;
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--scheduler") scheduler_name = value();
    else if (arg == "--model") model_name = value();
    else if (arg == "--devices") devices = unsigned(std::stoul(value()));
    else if (arg == "--launches") launches = unsigned(std::stoul(value()));
    else if (arg == "--seed") seed = std::stoull(value());
    else if (arg == "--trace") trace_path = value();
    else if (arg == "--warmstart") options.warm_start_dir = value();
    else if (arg == "--no-whole") options.allow_whole = false;
    else if (arg == "--table") table = true;
    else if (arg == "--list") {
      std::vector<std::string> names = model_names();
      for (const std::string& name : regret_model_names()) names.push_back(name);
      for (const std::string& name : names) {
        Model model;
        make_model(name, 0, &model, nullptr);
        std::printf("%-13s %s\n", name.c_str(), model.description.c_str());
      }
      return 0;
    } else if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    } else {
      std::cerr << "libsplit-sim: unknown argument " << arg << '\n' << kUsage;
      return 2;
    }
  }
  if (table) {
    if (int status = print_table(launches < 2 ? 20 : launches)) return status;
    return print_regret_table();
  }

  Model model;
  std::string error;
  if (!make_model(model_name, devices, &model, &error)) {
    std::cerr << "libsplit-sim: " << error << '\n';
    return 2;
  }
  std::unique_ptr<Scheduler> scheduler = build(scheduler_name, model, options);
  if (!scheduler) return 2;
  SimulationOptions sim;
  sim.launches = launches;
  sim.seed = seed;
  std::vector<LaunchResult> results = simulate(*scheduler, model, sim);
  print_iterations(model, results, scheduler->name());
  if (!trace_path.empty()) {
    std::ofstream out(trace_path);
    LaunchKey key = sim.key;
    key.global[key.split_dim] = model.numgroups * key.local[key.split_dim];
    write_trace(out, key, model.numgroups, results);
    if (!out) {
      std::cerr << "libsplit-sim: cannot write " << trace_path << '\n';
      return 1;
    }
  }
  return 0;
}
