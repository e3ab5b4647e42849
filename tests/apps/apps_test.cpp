// Runs every test app natively and under the libsplit shim and compares the
// outputs byte for byte. See README.md for what each app covers.
#include "process.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace apps_test {
namespace {

// Apps whose launches are expected to be split over several devices. The
// others run whole on one device under the shim: "atomics" (global atomics)
// and "errors" (mostly invalid calls).
const std::set<std::string> kNotSplit = {"atomics", "errors"};

// Apps that natively run on "pthread" only: PoCL 3.1's "basic" device
// deadlocks when a user event it waits on completes.
const std::set<std::string> kPthreadOnly = {"user_event"};

std::vector<std::string> app_names() {
  std::vector<std::string> names;
  std::stringstream list(LIBSPLIT_TEST_APPS);
  for (std::string name; std::getline(list, name, ',');)
    if (!name.empty()) names.push_back(name);
  return names;
}

std::string app_path(const std::string& app) {
  return std::string(LIBSPLIT_TEST_APPS_DIR) + "/app_" + app;
}

// The environment of a native run: one PoCL device, nothing of libsplit.
EnvChanges native_env(const std::string& devices) {
  return {{"POCL_DEVICES", devices},
          {"LD_PRELOAD", std::nullopt},
          {"LIBSPLIT_LOG", std::nullopt},
          {"LIBSPLIT_TRACE", std::nullopt},
          {"LIBSPLIT_CACHE_DIR", std::nullopt}};
}

struct AppRun {
  ProcessResult process;
  std::string output;  // what the app wrote to its output file
};

AppRun run_app(const std::string& app, const EnvChanges& env, const TempDir& dir,
               const std::string& tag) {
  const std::string work = dir.path() + "/" + tag;
  std::filesystem::create_directories(work);
  const std::string out_file = work + "/result.txt";
  AppRun run;
  run.process = run_process(app_path(app), {out_file}, env, work);
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

// Explains where two result dumps first differ: the dump section (one output
// buffer or printed value of the app), the byte within it, and both lines.
std::string first_difference(const std::string& expected, const std::string& actual) {
  size_t pos = 0;
  while (pos < expected.size() && pos < actual.size() && expected[pos] == actual[pos]) ++pos;
  std::ostringstream s;
  s << "outputs differ at character " << pos << " (native " << expected.size()
    << " chars, shim " << actual.size() << " chars)";
  // Walk the lines of the expected dump up to pos to name the section.
  size_t line_start = 0, section_line = 0, lines_in_section = 0;
  std::string section = "(none)";
  while (line_start <= pos && line_start < expected.size()) {
    size_t end = expected.find('\n', line_start);
    if (end == std::string::npos) end = expected.size();
    if (pos <= end) break;
    std::string line = expected.substr(line_start, end - line_start);
    if (line.find(' ') != std::string::npos) {
      section = line;
      lines_in_section = 0;
    } else {
      ++lines_in_section;
    }
    ++section_line;
    line_start = end + 1;
  }
  auto line_at = [](const std::string& text, size_t start) {
    if (start >= text.size()) return std::string("<end>");
    size_t end = text.find('\n', start);
    return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  };
  s << "\n  section \"" << section << "\"";
  const std::string exp_line = line_at(expected, line_start);
  if (exp_line.find(' ') == std::string::npos && exp_line != "<end>") {
    const size_t byte = lines_in_section * 32 + (pos - line_start) / 2;
    s << ", byte " << byte << " of the section";
  }
  s << "\n  native: " << exp_line << "\n  shim:   " << line_at(actual, line_start);
  return s.str();
}

class AppTest : public ::testing::TestWithParam<std::string> {};

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
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

#ifndef LIBSPLIT_SHIM_ONLY
INSTANTIATE_TEST_SUITE_P(Native, AppTest, ::testing::ValuesIn(app_names()), param_name);
#endif

#ifdef LIBSPLIT_SHIM_PATH

struct ShimCase {
  std::string app;
  std::string devices;  // POCL_DEVICES under the shim
  std::string label;    // test-name suffix
};

EnvChanges shim_env(const std::string& devices, const std::string& cache_dir) {
  EnvChanges env = native_env(devices);
  env["LD_PRELOAD"] = std::string(LIBSPLIT_SHIM_PATH);
  env["LIBSPLIT_CACHE_DIR"] = cache_dir;
#ifdef LIBSPLIT_CC_PATH
  env["LIBSPLIT_CC"] = std::string(LIBSPLIT_CC_PATH);
#endif
  return env;
}

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
  ASSERT_EQ(native.process.exit_code, 0) << describe(native);
  std::filesystem::create_directories(dir.path() + "/cache");
  AppRun shim = run_app(c.app, shim_env(c.devices, dir.path() + "/cache"), dir, "shim");
  ASSERT_EQ(shim.process.exit_code, native.process.exit_code)
      << "under the shim with POCL_DEVICES=\"" << c.devices << "\": " << describe(shim);
  EXPECT_TRUE(native.output == shim.output)
      << "POCL_DEVICES=\"" << c.devices << "\": " << first_difference(native.output, shim.output)
      << "\n--- shim stderr ---\n"
      << tail(shim.process.err);
  EXPECT_EQ(native.process.out, shim.process.out) << "stdout differs under the shim";
}

std::vector<ShimCase> shim_cases() {
  std::vector<ShimCase> cases;
  for (const std::string& app : app_names()) {
    cases.push_back({app, "pthread", "1dev"});
    cases.push_back({app, "pthread basic", "2dev"});
    cases.push_back({app, "pthread pthread basic basic", "4dev"});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Shim, ShimTest, ::testing::ValuesIn(shim_cases()), shim_name);

class SplitTest : public ::testing::TestWithParam<ShimCase> {};

// With several devices the launches of the regular apps really are split:
// the trace shows at least one launch whose slices ran on more than one
// device, and every traced launch's slices cover its work-groups exactly.
TEST_P(SplitTest, LaunchesAreSpreadOverDevices) {
  const ShimCase& c = GetParam();
  TempDir dir("apps-split");
  ASSERT_FALSE(dir.path().empty());
  AppRun native = run_app(c.app, native_env("pthread"), dir, "native");
  ASSERT_EQ(native.process.exit_code, 0) << describe(native);
  std::filesystem::create_directories(dir.path() + "/cache");
  EnvChanges env = shim_env(c.devices, dir.path() + "/cache");
  const std::string trace_path = dir.path() + "/trace.csv";
  env["LIBSPLIT_LOG"] = "1";
  env["LIBSPLIT_TRACE"] = trace_path;
  AppRun shim = run_app(c.app, env, dir, "shim");
  ASSERT_EQ(shim.process.exit_code, 0) << describe(shim);
  EXPECT_TRUE(native.output == shim.output) << first_difference(native.output, shim.output);

  const std::vector<TraceRow> rows = parse_trace(read_file(trace_path));
  ASSERT_FALSE(rows.empty()) << "no LIBSPLIT_TRACE rows in " << trace_path
                             << "\n--- shim stderr ---\n"
                             << tail(shim.process.err);
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

std::vector<ShimCase> split_cases() {
  std::vector<ShimCase> cases;
  for (const std::string& app : app_names())
    if (!kNotSplit.count(app)) cases.push_back({app, "pthread basic", "2dev"});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Split, SplitTest, ::testing::ValuesIn(split_cases()), shim_name);

#endif  // LIBSPLIT_SHIM_PATH

}  // namespace
}  // namespace apps_test
