// Runs every test app natively and under the libsplit shim and compares the
// outputs byte for byte. See README.md for what each app covers.
#include "process.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace apps_test {
namespace {

// Apps whose launches are expected to be split over several devices. The
// others run whole on one device under the shim: "atomics" (global atomics;
// its histogram splits, AtomicsTest),
// "errors" (mostly invalid calls) and "macro_probe" (one work-item).
const std::set<std::string> kNotSplit = {"atomics", "errors", "macro_probe"};
// Apps using images, samplers, SVM or native kernels: the shim runs those
// kernels whole on the app queue's device. They also run on 3 devices
// ("pthread basic basic") and DeviceBoundTest checks where their kernels ran.
const std::set<std::string> kDeviceBound = {"image", "image_ops", "device_bound"};

// Apps that natively run on "pthread" only: PoCL 3.1's "basic" device
// deadlocks when a user event it waits on completes.
const std::set<std::string> kPthreadOnly = {"user_event", "lifetimes"};

std::vector<std::string> split_names(const std::string& joined) {
  std::vector<std::string> names;
  std::stringstream list(joined);
  for (std::string name; std::getline(list, name, ',');)
    if (!name.empty()) names.push_back(name);
  return names;
}

[[maybe_unused]] std::vector<std::string> app_names() { return split_names(LIBSPLIT_TEST_APPS); }

// Apps whose source calls clLinkProgram (CMakeLists.txt): their runs use a
// PoCL kernel cache of the test's own. PoCL, without the shim, failed
// clLinkProgram (-17) while another test of the same app linked the same
// program into the shared cache at the same time (ctest -j2).
bool links_programs(const std::string& app) {
  static const std::vector<std::string> linking = split_names(LIBSPLIT_TEST_APPS_LINKING);
  return std::find(linking.begin(), linking.end(), app) != linking.end();
}

std::string app_path(const std::string& app) {
  return std::string(LIBSPLIT_TEST_APPS_DIR) + "/app_" + app;
}

// The environment of a native run: the given PoCL devices, no preload, and
// none of the caller's LIBSPLIT_* variables (the shim runs add their own).
EnvChanges native_env(const std::string& devices) {
  EnvChanges env = {{"POCL_DEVICES", devices}, {"LD_PRELOAD", std::nullopt}};
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    if (entry.rfind("LIBSPLIT_", 0) == 0) env[entry.substr(0, entry.find('='))] = std::nullopt;
  }
  return env;
}

struct AppRun {
  ProcessResult process;
  std::string output;  // what the app wrote to its output file
};

// Runs the app (through `launcher...`, e.g. {"/usr/bin/env", "libsplit-run",
// "--"}, when given) with its output file in dir/tag.
AppRun run_app(const std::string& app, EnvChanges env, const TempDir& dir,
               const std::string& tag, std::vector<std::string> launcher = {}) {
  const std::string work = dir.path() + "/" + tag;
  std::filesystem::create_directories(work);
  if (links_programs(app) && !env.count("POCL_CACHE_DIR")) env["POCL_CACHE_DIR"] = dir.path() + "/pocl-cache";
  const std::string out_file = work + "/result.txt";
  AppRun run;
  if (launcher.empty()) {
    run.process = run_process(app_path(app), {out_file}, env, work);
  } else {
    const std::string program = launcher.front();
    launcher.erase(launcher.begin());
    launcher.push_back(app_path(app));
    launcher.push_back(out_file);
    run.process = run_process(program, launcher, env, work);
  }
  run.output = read_file(out_file);
  return run;
}

// Tail of a text for failure messages.
std::string tail(const std::string& text, size_t max = 3000) {
  return text.size() <= max ? text : "..." + text.substr(text.size() - max);
}

std::string describe(const AppRun& run) {
  std::ostringstream s;
  const ProcessResult& p = run.process;
  s << "exit code " << p.exit_code;
  if (p.signal) s << ", killed by signal " << p.signal;
  if (p.timed_out) s << ", TIMED OUT";
  if (!p.started) s << ", not started";
  s << "\n--- stderr ---\n" << tail(p.err) << "\n";
  return s.str();
}

// One output of an app as read back from its dump: a buffer ("name <bytes>"
// followed by hex lines) or a printed value ("name = value").
struct Section {
  std::string name;
  std::string header;        // the header line as written
  std::vector<uint8_t> bytes;  // decoded hex (buffers only)
};

std::vector<Section> parse_dump(const std::string& dump) {
  std::vector<Section> sections;
  std::stringstream in(dump);
  auto hex = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (std::string line; std::getline(in, line);) {
    if (line.find(' ') != std::string::npos || sections.empty()) {
      sections.push_back({line.substr(0, line.find(' ')), line, {}});
      continue;
    }
    for (size_t i = 0; i + 1 < line.size(); i += 2)
      sections.back().bytes.push_back(uint8_t(hex(line[i]) * 16 + hex(line[i + 1])));
  }
  return sections;
}

// Explains how two result dumps differ: for every differing output, how many
// bytes differ, the first and last differing byte, and the values there.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::ostringstream s;
  const std::vector<Section> want = parse_dump(expected), got = parse_dump(actual);
  if (want.size() != got.size())
    s << "number of outputs differs: native " << want.size() << ", shim " << got.size() << "\n";
  size_t reported = 0;
  for (size_t i = 0; i < want.size() && i < got.size() && reported < 8; ++i) {
    const Section &w = want[i], &g = got[i];
    if (w.header != g.header) {
      s << "  output #" << i << ": native \"" << w.header << "\", shim \"" << g.header << "\"\n";
      ++reported;
      continue;
    }
    size_t first = SIZE_MAX, last = 0, count = 0;
    for (size_t b = 0; b < w.bytes.size() && b < g.bytes.size(); ++b)
      if (w.bytes[b] != g.bytes[b]) {
        first = std::min(first, b);
        last = b;
        ++count;
      }
    if (!count) continue;
    ++reported;
    s << "  output \"" << w.name << "\" (" << w.bytes.size() << " bytes): " << count
      << " bytes differ, first at byte " << first << ", last at byte " << last << "\n";
    auto word = [](const std::vector<uint8_t>& v, size_t at) {
      std::ostringstream o;
      o << std::hex;
      for (size_t k = at & ~size_t(3); k < (at & ~size_t(3)) + 4 && k < v.size(); ++k)
        o << (v[k] < 16 ? "0" : "") << int(v[k]);
      return o.str();
    };
    s << "    4-byte word at " << (first & ~size_t(3)) << ": native " << word(w.bytes, first)
      << ", shim " << word(g.bytes, first) << "\n";
  }
  if (!reported && expected != actual) s << "  (dumps differ in layout)\n";
  return "outputs differ:\n" + s.str();
}

#if defined(LIBSPLIT_SHIM_PATH) || defined(LIBSPLIT_PACKAGE_TEST)

// One row of the shim's LIBSPLIT_TRACE CSV, by column name.
using TraceRow = std::map<std::string, std::string>;

std::vector<TraceRow> parse_trace(const std::string& csv) {
  std::vector<TraceRow> rows;
  std::stringstream in(csv);
  std::string line;
  std::vector<std::string> header;
  auto split = [](const std::string& l) {
    std::vector<std::string> cells;
    std::stringstream cs(l);
    for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
    return cells;
  };
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header.empty()) {
      header = split(line);
      continue;
    }
    std::vector<std::string> cells = split(line);
    TraceRow row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

// The LIBSPLIT_TRACE of a run shows at least one launch whose slices ran on
// more than one device, and every traced launch's slices cover its
// work-groups exactly.
void expect_spread_over_devices(const std::string& trace_path, const AppRun& run) {
  const std::vector<TraceRow> rows = parse_trace(read_file(trace_path));
  ASSERT_FALSE(rows.empty()) << "no LIBSPLIT_TRACE rows in " << trace_path
                             << "\n--- shim stderr ---\n"
                             << tail(run.process.err);
  ASSERT_TRUE(rows[0].count("launch") && rows[0].count("device") && rows[0].count("groups"))
      << "trace lacks launch/device/groups columns";
  // launch id -> (device -> groups), and the slices of each launch.
  std::map<std::string, std::map<std::string, long long>> groups_by_device;
  std::map<std::string, std::vector<std::pair<long long, long long>>> slices;
  std::map<std::string, long long> total_groups;
  for (const TraceRow& row : rows) {
    const std::string launch = row.at("launch");
    const long long groups = std::stoll(row.at("groups"));
    if (groups > 0) groups_by_device[launch][row.at("device")] += groups;
    if (row.count("first_group") && row.count("total_groups")) {
      slices[launch].emplace_back(std::stoll(row.at("first_group")), groups);
      total_groups[launch] = std::stoll(row.at("total_groups"));
    }
  }
  size_t spread = 0;
  for (const auto& [launch, by_device] : groups_by_device)
    if (by_device.size() > 1) ++spread;
  EXPECT_GT(spread, 0u) << "no launch of " << groups_by_device.size()
                        << " ran on more than one device";
  for (auto& [launch, parts] : slices) {
    std::sort(parts.begin(), parts.end());
    long long next = 0;
    for (const auto& [first, count] : parts) {
      if (count == 0) continue;
      EXPECT_EQ(first, next) << "launch " << launch << ": slices leave a gap or overlap";
      next = first + count;
    }
    EXPECT_EQ(next, total_groups[launch]) << "launch " << launch << ": slices miss groups";
  }
}

#endif  // LIBSPLIT_SHIM_PATH || LIBSPLIT_PACKAGE_TEST

#ifndef LIBSPLIT_SHIM_ONLY
// The failure report names the differing output, its size, the byte range
// and the values, and reports nothing for identical dumps.
TEST(DiffReport, NamesOutputBytesAndValues) {
  const std::string native = "count = 3\nbuf 40\n" + std::string(64, '0') + "\n" +
                             std::string(16, '0') + "\n";
  std::string shim = native;
  // Byte 33 of "buf" (second hex line, after 64 digits and a newline): 0xf0.
  shim[shim.find("buf 40\n") + 7 + 65 + 2] = 'f';
  const std::string report = first_difference(native, shim);
  EXPECT_NE(report.find("output \"buf\" (40 bytes): 1 bytes differ, first at byte 33"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("native 00000000, shim 00f00000"), std::string::npos) << report;
  const std::string value_report = first_difference(native, "count = 4\n" + native.substr(10));
  EXPECT_NE(value_report.find("native \"count = 3\", shim \"count = 4\""), std::string::npos)
      << value_report;
}
#endif

class AppTest : public ::testing::TestWithParam<std::string> {};

[[maybe_unused]] std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

// The app itself must be sound: it runs, writes a result, and gives the same
// result on both PoCL device kinds (so any difference under the shim is the
// shim's doing).
TEST_P(AppTest, NativeIsDeterministicAcrossDevices) {
  const std::string app = GetParam();
  TempDir dir("apps-native");
  ASSERT_FALSE(dir.path().empty());
  AppRun pthread = run_app(app, native_env("pthread"), dir, "pthread");
  ASSERT_EQ(pthread.process.exit_code, 0) << describe(pthread);
  ASSERT_FALSE(pthread.output.empty()) << "the app wrote no result";
  if (kPthreadOnly.count(app)) return;
  AppRun basic = run_app(app, native_env("basic"), dir, "basic");
  ASSERT_EQ(basic.process.exit_code, 0) << describe(basic);
  EXPECT_TRUE(pthread.output == basic.output) << first_difference(pthread.output, basic.output);
  EXPECT_EQ(pthread.process.out, basic.process.out) << "stdout differs";
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(AppTest);
#ifndef LIBSPLIT_SHIM_ONLY
INSTANTIATE_TEST_SUITE_P(Native, AppTest, ::testing::ValuesIn(app_names()), param_name);
#endif

#ifdef LIBSPLIT_SHIM_PATH

struct ShimCase {
  std::string app;
  std::string devices;  // POCL_DEVICES under the shim
  std::string label;    // test-name suffix
  bool force_split = false;  // LIBSPLIT_WHOLE=0: the scheduler may not run launches whole
  std::string scheduler;     // LIBSPLIT_SCHEDULER, empty: the default
  bool warm_cache = false;   // run twice with one LIBSPLIT_CACHE_DIR, check both runs
  bool no_compiler = false;  // LIBSPLIT_CC names a missing file: the shim's Plain mode
  bool pinned = false;       // LIBSPLIT_PINNED=1, LIBSPLIT_DEVICE_COPIES=1: moves without the host copy
  // The preparation starts at the app's build and its PoCL build is held
  // back 30 s (LIBSPLIT_INJECT_FAULTS=slow_build): the app's objects end
  // while libsplit still works on them in the background.
  bool slow_build = false;
};

void PrintTo(const ShimCase& c, std::ostream* os) {
  *os << c.app << " on \"" << c.devices << "\"" << (c.force_split ? " LIBSPLIT_WHOLE=0" : "")
      << (c.warm_cache ? " (run twice, shared cache)" : "")
      << (c.no_compiler ? " without libsplit-cc" : "") << (c.pinned ? " LIBSPLIT_PINNED=1 LIBSPLIT_DEVICE_COPIES=1" : "")
      << (c.scheduler.empty() ? "" : " LIBSPLIT_SCHEDULER=" + c.scheduler)
      << (c.slow_build ? " LIBSPLIT_INJECT_FAULTS=slow_build" : "");
}

EnvChanges shim_env(const ShimCase& c, const std::string& cache_dir) {
  EnvChanges env = native_env(c.devices);
  // Forced splits also get the partition-ready program from the first launch
  // (the default prepares it in the background: the first launches run whole).
  if (c.force_split) env["LIBSPLIT_WHOLE"] = "0", env["LIBSPLIT_SYNC_PREPARE"] = "1";
  if (!c.scheduler.empty()) env["LIBSPLIT_SCHEDULER"] = c.scheduler;
  env["LD_PRELOAD"] = std::string(LIBSPLIT_SHIM_PATH);
  env["LIBSPLIT_CACHE_DIR"] = cache_dir;
  // PoCL's CPU devices stand for separate hardware here (by default the
  // shim counts devices on the host's cores as one: pass-through).
  env["LIBSPLIT_HOST_DEVICES"] = "all";
#ifdef LIBSPLIT_CC_PATH
  env["LIBSPLIT_CC"] = std::string(LIBSPLIT_CC_PATH);
#endif
  if (c.no_compiler) env["LIBSPLIT_CC"] = cache_dir + "/no-such-libsplit-cc";
  if (c.pinned) env["LIBSPLIT_PINNED"] = "1", env["LIBSPLIT_DEVICE_COPIES"] = "1";
  if (c.slow_build) env["LIBSPLIT_INJECT_FAULTS"] = "slow_build", env["LIBSPLIT_PREPARE_AFTER_MS"] = "0";
  // Passed on from the caller, so that the whole suite can be run with the
  // opt-in deferred writes (LIBSPLIT_DEFERRED_WRITES=1 ctest -L apps).
  if (const char* deferred = getenv("LIBSPLIT_DEFERRED_WRITES"))
    env["LIBSPLIT_DEFERRED_WRITES"] = deferred;
  return env;
}

// The shim must really be there and be preloaded: without it, ld.so only
// warns and the app runs natively, which would pass the comparison.
void check_preloaded(const AppRun& run) {
  ASSERT_TRUE(std::filesystem::exists(LIBSPLIT_SHIM_PATH))
      << LIBSPLIT_SHIM_PATH << " is missing: build the libsplit target";
  ASSERT_EQ(run.process.err.find("cannot be preloaded"), std::string::npos)
      << "the shim was not preloaded:\n"
      << tail(run.process.err);
}

class ShimTest : public ::testing::TestWithParam<ShimCase> {};

std::string shim_name(const ::testing::TestParamInfo<ShimCase>& info) {
  return info.param.app + "_" + info.param.label;
}

// Same output as the native single-device run, byte for byte, exit code 0.
TEST_P(ShimTest, OutputMatchesNative) {
  const ShimCase& c = GetParam();
  TempDir dir("apps-shim");
  ASSERT_FALSE(dir.path().empty());
  AppRun native = run_app(c.app, native_env("pthread"), dir, "native");
  // PoCL itself, without the shim, once failed clLinkProgram (-17) here
  // while another case of the same app compiled into its shared kernel
  // cache (ctest -j2): the reference run gets a second chance.
  if (native.process.exit_code != 0) native = run_app(c.app, native_env("pthread"), dir, "native");
  ASSERT_EQ(native.process.exit_code, 0) << describe(native);
  std::filesystem::create_directories(dir.path() + "/cache");
  for (int run = 0; run < (c.warm_cache ? 2 : 1); ++run) {
    SCOPED_TRACE(run == 0 ? "first run (cold libsplit-cc cache)" : "second run (warm cache)");
    AppRun shim = run_app(c.app, shim_env(c, dir.path() + "/cache"), dir,
                          "shim" + std::to_string(run));
    check_preloaded(shim);
    if (HasFatalFailure()) return;
    ASSERT_EQ(shim.process.exit_code, native.process.exit_code)
        << "under the shim with POCL_DEVICES=\"" << c.devices << "\": " << describe(shim);
    EXPECT_TRUE(native.output == shim.output)
        << "POCL_DEVICES=\"" << c.devices << "\": " << first_difference(native.output, shim.output)
        << "\n--- shim stderr ---\n"
        << tail(shim.process.err);
    EXPECT_EQ(native.process.out, shim.process.out) << "stdout differs under the shim";
  }
}

std::vector<ShimCase> shim_cases() {
  std::vector<ShimCase> cases;
  for (const std::string& app : app_names()) {
    cases.push_back({app, "pthread", "1dev", false, "", false, false});
    if (kDeviceBound.count(app))
      cases.push_back({app, "pthread basic basic", "3dev_forced", true, "", false, false});
    cases.push_back({app, "pthread basic", "2dev", false, "", true, false});
    cases.push_back({app, "pthread pthread basic basic", "4dev", false, "", false, false});
    // Every launch split, so that every kernel goes through the split path.
    cases.push_back({app, "pthread basic", "2dev_forced", true, "", false, false});
    // Chunk schedulers: many small slices whose devices change from launch
    // to launch, so buffer regions keep moving between devices.
    // ... and moving straight from device to device (copy commands within
    // the platform, pinned staging otherwise), not through the host copies.
    cases.push_back({app, "pthread pthread basic basic", "4dev_dynamic_pinned", true, "dynamic",
                     false, false, true});
    cases.push_back({app, "pthread basic", "2dev_hguided", true, "hguided", false, false});
    // No compiler: the shim must still be right (Plain mode or whole launches).
    cases.push_back({app, "pthread basic", "2dev_plain", true, "", false, true});
  }
  // The app releases its program and context, then waits for the context's
  // destructor callbacks, while the partition-ready program is still being
  // prepared in the background: they run at its release, as natively (they
  // waited for the preparation, over the app's 5 s on a loaded machine).
  ShimCase slow{"lifetimes", "pthread basic", "2dev_slow_build", false, "", false, false, false, true};
  cases.push_back(slow);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Shim, ShimTest, ::testing::ValuesIn(shim_cases()), shim_name);

class SplitTest : public ::testing::TestWithParam<ShimCase> {};

// With several devices (and LIBSPLIT_WHOLE=0, so that the scheduler may not
// keep small launches whole) the launches of the regular apps really are
// split: the trace shows at least one launch whose slices ran on more than one
// device, and every traced launch's slices cover its work-groups exactly.
TEST_P(SplitTest, LaunchesAreSpreadOverDevices) {
  const ShimCase& c = GetParam();
  TempDir dir("apps-split");
  ASSERT_FALSE(dir.path().empty());
  AppRun native = run_app(c.app, native_env("pthread"), dir, "native");
  ASSERT_EQ(native.process.exit_code, 0) << describe(native);
  std::filesystem::create_directories(dir.path() + "/cache");
  EnvChanges env = shim_env(c, dir.path() + "/cache");
  const std::string trace_path = dir.path() + "/trace.csv";
  env["LIBSPLIT_LOG"] = "1";
  env["LIBSPLIT_TRACE"] = trace_path;
  AppRun shim = run_app(c.app, env, dir, "shim");
  check_preloaded(shim);
  if (HasFatalFailure()) return;
  ASSERT_EQ(shim.process.exit_code, 0) << describe(shim);
  EXPECT_TRUE(native.output == shim.output) << first_difference(native.output, shim.output);

  expect_spread_over_devices(trace_path, shim);
}

// launch id -> devices its slices ran on, for the launches of `kernels`.
std::map<std::string, std::set<std::string>> devices_of_launches(const std::string& trace_path,
                                                                 const std::set<std::string>& kernels) {
  std::map<std::string, std::set<std::string>> out;
  for (const TraceRow& row : parse_trace(read_file(trace_path)))
    if (kernels.count(row.at("kernel")) && std::stoll(row.at("groups")) > 0)
      out[row.at("launch")].insert(row.at("device"));
  return out;
}

// Kernels whose global atomics are not reductions must never be split, even
// when the scheduler may not keep launches whole; their results must still
// match. The histogram (atomic_inc, result unused) is a reduction: split.
TEST(AtomicsTest, AtomicKernelsRunWholeOnOneDevice) {
  TempDir dir("apps-atomics");
  ASSERT_FALSE(dir.path().empty());
  AppRun native = run_app("atomics", native_env("pthread"), dir, "native");
  ASSERT_EQ(native.process.exit_code, 0) << describe(native);
  std::filesystem::create_directories(dir.path() + "/cache");
  const ShimCase c{"atomics", "pthread pthread basic basic", "4dev", true, "", false, false};
  EnvChanges env = shim_env(c, dir.path() + "/cache");
  const std::string trace_path = dir.path() + "/trace.csv";
  env["LIBSPLIT_TRACE"] = trace_path;
  AppRun shim = run_app("atomics", env, dir, "shim");
  check_preloaded(shim);
  if (HasFatalFailure()) return;
  ASSERT_EQ(shim.process.exit_code, 0) << describe(shim);
  EXPECT_TRUE(native.output == shim.output) << first_difference(native.output, shim.output);
  // stats (add, max, min and inc on one buffer) and mark_seen (cmpxchg).
  auto whole = devices_of_launches(trace_path, {"stats", "mark_seen"});
  EXPECT_EQ(whole.size(), 2u) << "atomic-kernel launches missing from the trace";
  for (const auto& [launch, devices] : whole)
    EXPECT_EQ(devices.size(), 1u) << "launch " << launch << " of an atomic kernel was split";
  auto reduced = devices_of_launches(trace_path, {"histogram"});
  EXPECT_EQ(reduced.size(), 2u) << "histogram launches missing from the trace";
  for (const auto& [launch, devices] : reduced)
    EXPECT_GT(devices.size(), 1u) << "histogram launch " << launch << " was not split";
}

// The app "reductions" natively on "pthread", then under a forced uniform
// split on "pthread basic" with `extra` settings, traced and logged.
struct ReductionRuns {
  AppRun native, shim;
  std::string trace;  // the shim run's LIBSPLIT_TRACE
  bool wide = false;  // the device has 64-bit atomics (one more kernel)
  // Launches of the reduction kernels, by launch: the devices they ran on.
  std::map<std::string, std::set<std::string>> reduction_launches() const {
    return devices_of_launches(trace, {"histogram", "sums", "count_down", "extremes", "bits", "wide"});
  }
};

void run_reductions(TempDir& dir, const EnvChanges& extra, ReductionRuns* r) {
  ASSERT_FALSE(dir.path().empty());
  r->native = run_app("reductions", native_env("pthread"), dir, "native");
  ASSERT_EQ(r->native.process.exit_code, 0) << describe(r->native);
  std::filesystem::create_directories(dir.path() + "/cache");
  const ShimCase c{"reductions", "pthread basic", "2dev", true, "uniform", false, false};
  EnvChanges env = shim_env(c, dir.path() + "/cache");
  r->trace = dir.path() + "/trace.csv";
  env["LIBSPLIT_TRACE"] = r->trace;
  env["LIBSPLIT_LOG"] = "1";
  for (const auto& [k, v] : extra) env[k] = v;
  r->shim = run_app("reductions", env, dir, "shim");
  check_preloaded(r->shim);
  if (testing::Test::HasFatalFailure()) return;
  ASSERT_EQ(r->shim.process.exit_code, 0) << describe(r->shim);
  EXPECT_TRUE(r->native.output == r->shim.output) << first_difference(r->native.output, r->shim.output);
  r->wide = r->native.output.find("int64 atomics = 0") == std::string::npos;
}

// Reduction kernels split over two devices with the uniform scheduler:
// every launch of a reduction kernel runs on both, the result matches the
// native run byte for byte, and the log says the copies were combined. The
// compaction (atomic_inc result used) runs whole.
TEST(ReductionsTest, ReductionKernelsSplitAndMatchNative) {
  TempDir dir("apps-reductions");
  ReductionRuns r;
  run_reductions(dir, {}, &r);
  if (HasFatalFailure()) return;
  auto split = r.reduction_launches();
  EXPECT_EQ(split.size(), r.wide ? 7u : 6u) << "reduction launches missing from the trace";
  for (const auto& [launch, devices] : split)
    EXPECT_EQ(devices.size(), 2u) << "reduction launch " << launch << " was not split";
  EXPECT_NE(r.shim.process.err.find("| reduced (combined on the host)"), std::string::npos)
      << tail(r.shim.process.err);
  auto whole = devices_of_launches(r.trace, {"compact"});
  EXPECT_EQ(whole.size(), 1u) << "compact launch missing from the trace";
  for (const auto& [launch, devices] : whole)
    EXPECT_EQ(devices.size(), 1u) << "compact (atomic result used) was split";
}

// LIBSPLIT_REDUCTIONS=0 (the "before" of issue 10's reduction split): the
// same forced split keeps every launch of a reduction kernel whole on the
// queue's device (runtime device 0, the one the app picks), the log says why,
// and the result still matches the native run byte for byte.
TEST(ReductionsTest, ReductionsOffRunWholeOnTheQueueDevice) {
  TempDir dir("apps-reductions-off");
  ReductionRuns r;
  run_reductions(dir, {{"LIBSPLIT_REDUCTIONS", "0"}}, &r);
  if (HasFatalFailure()) return;
  auto whole = r.reduction_launches();
  EXPECT_EQ(whole.size(), r.wide ? 7u : 6u) << "reduction launches missing from the trace";
  for (const auto& [launch, devices] : whole)
    EXPECT_EQ(devices, std::set<std::string>{"0"}) << "reduction launch " << launch
                                                   << " not whole on the queue's device";
  EXPECT_NE(r.shim.process.err.find("reduction buffers (LIBSPLIT_REDUCTIONS=0)"), std::string::npos)
      << tail(r.shim.process.err);
  EXPECT_EQ(r.shim.process.err.find("| reduced (combined on the host)"), std::string::npos)
      << tail(r.shim.process.err);
}

std::vector<ShimCase> split_cases() {
  std::vector<ShimCase> cases;
  for (const std::string& app : app_names())
    if (!kNotSplit.count(app))
      cases.push_back({app, "pthread basic", "2dev", true, "", false, false});
  return cases;
}

// Kernels with image, sampler or SVM arguments (or SVM exec info) run whole
// on the app queue's device (runtime device 0: the first PoCL device, the
// one the apps pick), even when the scheduler may not keep launches whole;
// the buffer kernels of the same apps are split; the output matches.
TEST(DeviceBoundTest, ImageAndSvmKernelsRunWholeOnTheQueueDevice) {
  const std::map<std::string, std::set<std::string>> bound = {
      {"image_ops", {"make", "blur", "combine", "volume", "layers"}},
      {"image", {"sample", "paint"}},
      {"device_bound", {"through"}}};
  const std::map<std::string, std::string> split_kernel = {
      {"image_ops", "scale"}, {"image", "brighten"}, {"device_bound", "axpy"}};
  for (const auto& [app, kernels] : bound) {
    SCOPED_TRACE(app);
    TempDir dir("apps-bound");
    ASSERT_FALSE(dir.path().empty());
    AppRun native = run_app(app, native_env("pthread"), dir, "native");
    ASSERT_EQ(native.process.exit_code, 0) << describe(native);
    std::filesystem::create_directories(dir.path() + "/cache");
    const ShimCase c{app, "pthread basic basic", "3dev", true, "", false, false};
    EnvChanges env = shim_env(c, dir.path() + "/cache");
    const std::string trace_path = dir.path() + "/trace.csv";
    env["LIBSPLIT_TRACE"] = trace_path;
    AppRun shim = run_app(app, env, dir, "shim");
    check_preloaded(shim);
    if (HasFatalFailure()) return;
    ASSERT_EQ(shim.process.exit_code, 0) << describe(shim);
    EXPECT_TRUE(native.output == shim.output) << first_difference(native.output, shim.output);
    std::map<std::string, std::set<std::string>> bound_devices;  // launch -> devices
    std::map<std::string, std::set<std::string>> split_devices;
    for (const TraceRow& row : parse_trace(read_file(trace_path))) {
      if (std::stoll(row.at("groups")) == 0) continue;
      if (kernels.count(row.at("kernel"))) bound_devices[row.at("launch")].insert(row.at("device"));
      if (row.at("kernel") == split_kernel.at(app)) split_devices[row.at("launch")].insert(row.at("device"));
    }
    EXPECT_FALSE(bound_devices.empty()) << "device-bound launches missing from the trace";
    for (const auto& [launch, devices] : bound_devices)
      EXPECT_EQ(devices, std::set<std::string>{"0"}) << "launch " << launch << " not whole on device 0";
    bool spread = false;
    for (const auto& [launch, devices] : split_devices) spread |= devices.size() > 1;
    EXPECT_TRUE(spread) << split_kernel.at(app) << " was never split";
  }
}

INSTANTIATE_TEST_SUITE_P(Split, SplitTest, ::testing::ValuesIn(split_cases()), shim_name);

// LIBSPLIT_DEFERRED_WRITES=1 on 2 devices: the wprotect app reuses, frees and
// unmaps its source arrays right after blocking writes (the kernels must see
// the data as of the write: same output as native; an unmapped source made
// the deferred copy fault before blocking writes were copied at once), relies
// on its own SIGSEGV handler for an unrelated PROT_NONE page (the shim's
// handler must chain to it), and the log shows that a non-blocking write was
// deferred and that a store into its source was trapped by the protection.
TEST(DeferredWritesTest, ReusedSourcesTrappedAndAppHandlerChained) {
  TempDir dir("apps-deferred");
  ASSERT_FALSE(dir.path().empty());
  AppRun native = run_app("wprotect", native_env("pthread"), dir, "native");
  ASSERT_EQ(native.process.exit_code, 0) << describe(native);
  std::filesystem::create_directories(dir.path() + "/cache");
  const ShimCase c{"wprotect", "pthread basic", "2dev", true, "", false, false};
  EnvChanges env = shim_env(c, dir.path() + "/cache");
  env["LIBSPLIT_DEFERRED_WRITES"] = "1";
  env["LIBSPLIT_LOG"] = "2";
  AppRun shim = run_app("wprotect", env, dir, "shim");
  check_preloaded(shim);
  if (HasFatalFailure()) return;
  ASSERT_EQ(shim.process.exit_code, 0) << describe(shim);
  EXPECT_TRUE(native.output == shim.output)
      << first_difference(native.output, shim.output) << "\n--- shim stderr ---\n"
      << tail(shim.process.err);
  EXPECT_NE(shim.process.out.find("app_handler_runs = 1"), std::string::npos) << describe(shim);
  EXPECT_NE(shim.process.err.find("bytes write-protected, copy deferred"), std::string::npos)
      << describe(shim);
  EXPECT_NE(shim.process.err.find("libsplit: deferred write trapped"), std::string::npos)
      << describe(shim);
}

// Launches (by LIBSPLIT_TRACE launch id) whose slices ran on more than one device.
size_t launches_on_several_devices(const std::string& trace_path) {
  std::map<std::string, std::set<std::string>> devices_of_launch;
  for (const TraceRow& row : parse_trace(read_file(trace_path)))
    if (row.count("groups") && std::stoll(row.at("groups")) > 0)
      devices_of_launch[row.at("launch")].insert(row.at("device"));
  size_t spread = 0;
  for (const auto& [launch, devices] : devices_of_launch) spread += devices.size() > 1;
  return spread;
}

// Buffers written only under a device-predefined macro (__OPENCL_VERSION__,
// #ifndef cl_khr_fp16, __IMAGE_SUPPORT__, an extension, the OpenCL C
// version): libsplit-cc must analyse with the devices' macros, or the shim
// leaves those writes on the devices and the app reads stale bytes. Every
// launch split (LIBSPLIT_WHOLE=0) on 2 and 3 devices.
TEST(DeviceMacrosTest, WritesUnderDeviceMacrosComeBackOn2And3Devices) {
  for (const char* devices : {"pthread basic", "pthread basic basic"}) {
    SCOPED_TRACE(devices);
    TempDir dir("apps-macros");
    ASSERT_FALSE(dir.path().empty());
    AppRun native = run_app("device_macros", native_env("pthread"), dir, "native");
    ASSERT_EQ(native.process.exit_code, 0) << describe(native);
    std::filesystem::create_directories(dir.path() + "/cache");
    const ShimCase c{"device_macros", devices, "macros", true, "", false, false};
    EnvChanges env = shim_env(c, dir.path() + "/cache");
    const std::string trace_path = dir.path() + "/trace.csv";
    env["LIBSPLIT_TRACE"] = trace_path;
    env["LIBSPLIT_LOG"] = "1";
    AppRun shim = run_app("device_macros", env, dir, "shim");
    check_preloaded(shim);
    if (HasFatalFailure()) return;
    ASSERT_EQ(shim.process.exit_code, 0) << describe(shim);
    EXPECT_TRUE(native.output == shim.output) << first_difference(native.output, shim.output);
    EXPECT_GT(launches_on_several_devices(trace_path), 0u) << tail(shim.process.err);
    EXPECT_EQ(shim.process.err.find("not partition-ready"), std::string::npos) << tail(shim.process.err);
  }
}

// The macro sets the shim derives from clGetDeviceInfo (LIBSPLIT_LOG=2 lists
// them) against what PoCL's compiler really predefines (the macro_probe app,
// run natively on each device): for every build of the probe, one derived
// set agrees with the device on every probed macro (defined or not, and its
// value). `__opencl_c_*` are compared in OpenCL C 3.0 builds only (older
// versions get Clang's own version-derived features, as the driver does).
// cl_khr_depth_images is not probed: PoCL defines it without listing it.
TEST(DeviceMacrosTest, DerivedSetsMatchWhatPoclPredefines) {
  TempDir dir("apps-probe");
  ASSERT_FALSE(dir.path().empty());
  std::filesystem::create_directories(dir.path() + "/cache");
  const ShimCase c{"macro_probe", "pthread basic", "probe", false, "", false, false};
  EnvChanges env = shim_env(c, dir.path() + "/cache");
  env["LIBSPLIT_LOG"] = "2";
  env["LIBSPLIT_SYNC_PREPARE"] = "1";
  AppRun shim = run_app("macro_probe", env, dir, "shim");
  check_preloaded(shim);
  if (HasFatalFailure()) return;
  ASSERT_EQ(shim.process.exit_code, 0) << describe(shim);
  // options label -> derived sets (name -> value).
  std::map<std::string, std::vector<std::map<std::string, std::string>>> derived;
  {
    std::stringstream log(shim.process.err);
    const std::string marker = "libsplit-cc device macro sets (options '";
    for (std::string line; std::getline(log, line);) {
      size_t at = line.find(marker);
      if (at == std::string::npos) continue;
      size_t end = line.find("'): ", at);
      ASSERT_NE(end, std::string::npos) << line;
      std::string options = line.substr(at + marker.size(), end - at - marker.size());
      std::string label = options.empty() ? "default" : options == "-cl-std=CL1.2" ? "cl12" : options;
      std::stringstream sets(line.substr(end + 4));
      for (std::string set; std::getline(sets, set, '|');) {
        std::map<std::string, std::string> macros;
        std::stringstream items(set);
        for (std::string item; std::getline(items, item, ',');) {
          item.erase(0, item.find_first_not_of(' '));
          item.erase(item.find_last_not_of(' ') + 1);
          if (item.empty()) continue;
          size_t eq = item.find('=');
          macros[item.substr(0, eq)] = eq == std::string::npos ? "1" : item.substr(eq + 1);
        }
        derived[label].push_back(macros);
      }
    }
  }
  ASSERT_EQ(derived.size(), 2u) << "expected the sets of 2 builds in the log\n" << tail(shim.process.err);
  for (const char* device : {"pthread", "basic"}) {
    SCOPED_TRACE(device);
    AppRun native = run_app("macro_probe", native_env(device), dir, std::string("native-") + device);
    ASSERT_EQ(native.process.exit_code, 0) << describe(native);
    // label -> name -> value ("-1": undefined).
    std::map<std::string, std::map<std::string, std::string>> actual;
    std::stringstream out(native.output);
    for (std::string line; std::getline(out, line);) {
      size_t colon = line.find(':'), eq = line.find(" = ");
      if (colon == std::string::npos || eq == std::string::npos) continue;
      actual[line.substr(0, colon)][line.substr(colon + 1, eq - colon - 1)] = line.substr(eq + 3);
    }
    ASSERT_EQ(actual.size(), 2u) << native.output;
    for (const auto& [label, macros] : actual) {
      SCOPED_TRACE(label);
      const bool version3 = macros.at("__OPENCL_C_VERSION__") == "300";
      std::string mismatches_of_best;
      size_t best = SIZE_MAX;
      for (const auto& set : derived[label]) {
        std::string mismatches;
        size_t count = 0;
        for (const auto& [name, value] : macros) {
          if (!version3 && name.rfind("__opencl_c_", 0) == 0) continue;
          auto it = set.find(name);
          const std::string want = it == set.end() ? "-1" : it->second;
          if (want != value) {
            ++count;
            mismatches += " " + name + " (device " + value + ", derived " + want + ")";
          }
        }
        if (count < best) best = count, mismatches_of_best = mismatches;
      }
      EXPECT_EQ(best, 0u) << "no derived set matches the device; closest differs in:" << mismatches_of_best;
    }
  }
}

// An app that caches its program binary: the first run builds from source and
// saves the binary, the second creates its program from that binary. libsplit
// recorded the binary it handed out (hash -> source, options in its cache
// directory), so the second run is partition-ready and split. Without the
// record, the log says why the program runs whole, and the output is right.
TEST(BinaryCacheTest, SecondRunFromTheCachedBinaryIsSplit) {
  TempDir dir("apps-bincache");
  ASSERT_FALSE(dir.path().empty());
  AppRun native = run_app("binary_cache", native_env("pthread"), dir, "native");
  ASSERT_EQ(native.process.exit_code, 0) << describe(native);
  std::filesystem::create_directories(dir.path() + "/cache");
  const ShimCase c{"binary_cache", "pthread basic", "bincache", true, "", false, false};
  EnvChanges env = shim_env(c, dir.path() + "/cache");
  const std::string binary = dir.path() + "/program.bin";
  env["APP_BINARY_FILE"] = binary;
  env["LIBSPLIT_LOG"] = "1";
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE(run == 0 ? "from source" : run == 1 ? "from the binary" : "binary table removed");
    if (run == 2) std::filesystem::remove_all(dir.path() + "/cache/binaries");
    const std::string trace_path = dir.path() + "/trace" + std::to_string(run) + ".csv";
    env["LIBSPLIT_TRACE"] = trace_path;
    AppRun shim = run_app("binary_cache", env, dir, "shim" + std::to_string(run));
    check_preloaded(shim);
    if (HasFatalFailure()) return;
    ASSERT_EQ(shim.process.exit_code, 0) << describe(shim);
    EXPECT_TRUE(native.output == shim.output) << first_difference(native.output, shim.output);
    const std::string& log = shim.process.err;
    EXPECT_EQ(log.find("binary_cache: program from") != std::string::npos, run > 0) << tail(log);
    if (run < 2) {
      EXPECT_GT(launches_on_several_devices(trace_path), 0u) << tail(log);
      EXPECT_EQ(log.find("not partition-ready"), std::string::npos) << tail(log);
    }
    if (run == 1) {
      EXPECT_NE(log.find("source and options restored"), std::string::npos) << tail(log);
    }
    if (run == 2) {
      EXPECT_NE(log.find("not partition-ready (a binary libsplit did not hand out"), std::string::npos)
          << tail(log);
    }
  }
  // The table is private to the user: directory 0700, entries 0600.
  std::filesystem::remove(binary);
  run_app("binary_cache", env, dir, "again");
  namespace fs = std::filesystem;
  const fs::path table = dir.path() + "/cache/binaries";
  ASSERT_TRUE(fs::exists(table));
  EXPECT_EQ(fs::status(table).permissions() & fs::perms::all, fs::perms::owner_all);
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(table)) {
    ++entries;
    EXPECT_EQ(fs::status(e.path()).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write)
        << e.path();
  }
  EXPECT_GT(entries, 0u);
}

#endif  // LIBSPLIT_SHIM_PATH

#ifdef LIBSPLIT_PACKAGE_TEST

// The Debian package, unpacked by the test package_deb_unpack into
// $LIBSPLIT_PACKAGE_ROOT, used as a user would: `libsplit-run -- ./app` with
// libsplit-run found on PATH, no LD_PRELOAD and no LIBSPLIT_CC given, so the
// installed libsplit-run must find the installed libsplit.so, and that the
// installed libsplit-cc (nothing of the build tree is reachable from there).
// On 2 devices with every launch split, the output equals the native run's.
class PackageTest : public ::testing::TestWithParam<std::string> {};

TEST_P(PackageTest, InstalledLibsplitRunMatchesNative) {
  const std::string app = GetParam();
  const char* root = getenv("LIBSPLIT_PACKAGE_ROOT");
  ASSERT_TRUE(root && *root) << "LIBSPLIT_PACKAGE_ROOT (the unpacked .deb) is not set";
  const std::string bin = std::string(root) + "/usr/bin";
  ASSERT_TRUE(std::filesystem::exists(bin + "/libsplit-run")) << bin << "/libsplit-run is missing";
  TempDir dir("apps-package");
  ASSERT_FALSE(dir.path().empty());
  AppRun native = run_app(app, native_env("pthread"), dir, "native");
  ASSERT_EQ(native.process.exit_code, 0) << describe(native);
  std::filesystem::create_directories(dir.path() + "/cache");
  EnvChanges env = native_env("pthread basic");
  env["PATH"] = bin + ":/usr/bin:/bin";
  env["LIBSPLIT_WHOLE"] = "0";
  env["LIBSPLIT_SYNC_PREPARE"] = "1";  // split from the first launch
  env["LIBSPLIT_LOG"] = "1";
  env["LIBSPLIT_CACHE_DIR"] = dir.path() + "/cache";
  const std::string trace_path = dir.path() + "/trace.csv";
  env["LIBSPLIT_TRACE"] = trace_path;
  AppRun installed = run_app(app, env, dir, "installed", {"/usr/bin/env", "libsplit-run", "--"});
  ASSERT_EQ(installed.process.exit_code, 0) << describe(installed);
  EXPECT_TRUE(native.output == installed.output)
      << first_difference(native.output, installed.output) << "\n--- stderr ---\n"
      << tail(installed.process.err);
  EXPECT_EQ(native.process.out, installed.process.out) << "stdout differs under libsplit-run";
  // The shim logs this when it cannot run libsplit-cc (or its output is bad).
  EXPECT_EQ(installed.process.err.find("not partition-ready"), std::string::npos)
      << "the installed shim did not use the installed libsplit-cc:\n"
      << tail(installed.process.err);
  expect_spread_over_devices(trace_path, installed);
}

// A C app, an iterative C one, a C++ one.
INSTANTIATE_TEST_SUITE_P(Package, PackageTest,
                         ::testing::Values("vecops", "stencil2d", "matmul"), param_name);

#endif  // LIBSPLIT_PACKAGE_TEST

}  // namespace
}  // namespace apps_test
