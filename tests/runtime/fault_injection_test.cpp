// The fault-injection suite (issue 24): rt_app scenarios run as children under
// the shim on two PoCL devices while LIBSPLIT_INJECT_FAULTS=fail=NAME@N:CODE
// makes the N-th call libsplit makes to the driver's NAME fail. A first run
// with count_real_calls tells which entry points the scenario reaches and how
// often; then the first and the last call of each fail in turn. Every run
// must end in one of
//   native code: the app exits on an error, the injected code (as when the
//                driver fails the app's own call natively);
//   recovered:   the app exits normally with the native output, bit for bit
//                (libsplit hid the failure, or the app ignores that call's
//                result, e.g. a release);
//   clean error: the app exits on another error code;
//   not reached: the failing call was never made (calls that depend on timing);
// never a crash (a signal), a hang (the timeout) or a normal exit with an
// output different from the native one.
#include "child.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

using rt_test::Env;
using rt_test::run_child;
using rt_test::without_shim;

namespace {

constexpr int kInjectedCode = -6;  // CL_OUT_OF_HOST_MEMORY
constexpr int kTimeoutS = 60;      // a normal run takes a few seconds

std::string temp_dir() {
  static std::string dir = [] {
    char templ[] = "/tmp/rt_faults_XXXXXX";
    return std::string(mkdtemp(templ));
  }();
  return dir;
}

Env native_env() {
  Env env = without_shim();
  env["POCL_DEVICES"] = "pthread basic";
  return env;
}

// forced: every launch split (no whole runs, partitions from the first
// launch, no libsplit-cc); default: the shim's default settings.
Env shim_env(bool forced) {
  Env env = native_env();
  env["LD_PRELOAD"] = std::string(LIBSPLIT_SO);
  env["LIBSPLIT_HOST_DEVICES"] = "all";
  env["LIBSPLIT_CACHE_DIR"] = temp_dir() + (forced ? "/forced-cache" : "/default-cache");
  if (forced) {
    env["LIBSPLIT_WHOLE"] = "0";
    env["LIBSPLIT_SYNC_PREPARE"] = "1";
    env["LIBSPLIT_CC"] = "/nonexistent/libsplit-cc";
  } else {
    env["LIBSPLIT_CC"] = std::string(LIBSPLIT_CC_PATH);
  }
  return env;
}

// "libsplit: real calls: clA=3 clB=1" -> {clA: 3, clB: 1}
std::map<std::string, unsigned long> real_call_counts(const std::string& err) {
  std::map<std::string, unsigned long> counts;
  const std::string tag = "libsplit: real calls:";
  const size_t at = err.rfind(tag);
  if (at == std::string::npos) return counts;
  std::istringstream words(err.substr(at + tag.size(), err.find('\n', at) - at - tag.size()));
  for (std::string word; words >> word;) {
    const size_t eq = word.find('=');
    counts[word.substr(0, eq)] = std::stoul(word.substr(eq + 1));
  }
  return counts;
}

// Entry points returning nothing: their failure cannot be injected.
bool can_fail(const std::string& name) { return name != "clSVMFree"; }

struct Outcome {
  std::string cls;
  bool bad = false;
};

Outcome classify(const rt_test::ChildResult& r, double seconds, const std::string& native_out) {
  const bool fired = r.err.find("libsplit: injected fault:") != std::string::npos;
  if (r.exit_code < 0) return {seconds >= kTimeoutS ? "HANG" : "CRASH", true};
  if (r.exit_code == 0) {
    if (r.out == native_out) return {fired ? "recovered" : "not reached", false};
    return {fired ? "WRONG OUTPUT" : "WRONG OUTPUT (no fault)", true};
  }
  if (!fired) return {"FAILED WITHOUT FAULT", true};
  if (r.err.find("-> " + std::to_string(kInjectedCode)) != std::string::npos) return {"native code", false};
  return {"clean error", false};
}

struct Case {
  std::string scenario;
  bool forced;
};

// What ctest and gtest print for a case (not the struct's bytes).
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.scenario << (c.forced ? ", every launch split" : ", default settings");
}

class Faults : public testing::TestWithParam<Case> {};

TEST_P(Faults, EveryDriverFailureEndsCleanly) {
  const Case& c = GetParam();
  auto native = run_child({RT_APP, c.scenario}, native_env());
  ASSERT_EQ(native.exit_code, 0) << native.err;
  Env env = shim_env(c.forced);
  env["LIBSPLIT_INJECT_FAULTS"] = "count_real_calls";
  auto counted = run_child({RT_APP, c.scenario}, env);
  ASSERT_EQ(counted.exit_code, 0) << counted.err;
  ASSERT_EQ(counted.out, native.out);
  const auto counts = real_call_counts(counted.err);
  ASSERT_FALSE(counts.empty()) << counted.err;

  // FAULTS_TABLE=<file>: the outcomes are appended there (docs/fault-injection.md).
  std::ofstream table;
  if (const char* path = getenv("FAULTS_TABLE")) table.open(path, std::ios::app);
  const std::string mode = c.forced ? "forced" : "default";
  for (const auto& [name, calls] : counts) {
    if (!can_fail(name)) continue;
    std::vector<unsigned long> failing = {1};
    if (calls > 1) failing.push_back(calls);
    for (unsigned long call : failing) {
      env["LIBSPLIT_INJECT_FAULTS"] =
          "fail=" + name + "@" + std::to_string(call) + ":" + std::to_string(kInjectedCode);
      const auto start = std::chrono::steady_clock::now();
      auto r = run_child({RT_APP, c.scenario}, env, kTimeoutS);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const Outcome o = classify(r, seconds, native.out);
      const std::string row = c.scenario + " " + mode + " " + name + " " + std::to_string(call) + "/" +
                              std::to_string(calls) + " " + o.cls;
      printf("%s\n", row.c_str());
      if (table.is_open()) table << row << "\n";
      EXPECT_FALSE(o.bad) << row << "\nexit " << r.exit_code << "\nstderr:\n" << r.err;
    }
  }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* s : {"vecadd", "twod", "rw", "iterative", "merge", "events", "images2q", "usehost"})
    for (bool forced : {true, false}) out.push_back({s, forced});
  return out;
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  return info.param.scenario + (info.param.forced ? "_forced" : "_default");
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Faults, testing::ValuesIn(cases()), case_name);

}  // namespace
