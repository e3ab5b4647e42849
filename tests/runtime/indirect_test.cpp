// Run-time inspection of indirection (libsplit/indirect_regions.h): kernels
// that index buffers through other buffers split with only the touched bytes
// moved, and give the native bytes. indirect_app runs natively and under the
// shim on 2 and 3 PoCL devices (static uniform split: every launch splits);
// the trace shows each launch ran on every device, the log's "B in" counts
// are compared with the same run without the inspection (LIBSPLIT_INDIRECT=0,
// whole index-dependent buffers).
#include "child.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

using rt_test::Env;
using rt_test::run_child;

namespace {

std::string temp_dir() {
  static std::string dir = [] {
    char templ[] = "/tmp/rt_indirect_XXXXXX";
    return std::string(mkdtemp(templ));
  }();
  return dir;
}

Env native_env(const std::string& devices) {
  return {{"POCL_DEVICES", devices}, {"LD_PRELOAD", std::nullopt}, {"LIBSPLIT_LOG", std::nullopt},
          {"LIBSPLIT_TRACE", std::nullopt}, {"LIBSPLIT_INDIRECT", std::nullopt}};
}

Env shim_env(const std::string& devices, bool indirect, const std::string& trace,
             const std::string& scheduler = "uniform") {
  Env env = native_env(devices);
  env["LD_PRELOAD"] = std::string(LIBSPLIT_SO);
  env["LIBSPLIT_CC"] = LIBSPLIT_CC_PATH;
  env["LIBSPLIT_CACHE_DIR"] = temp_dir() + "/cc-cache";
  env["LIBSPLIT_SYNC_PREPARE"] = "1";
  env["LIBSPLIT_SCHEDULER"] = scheduler;
  env["LIBSPLIT_LOG"] = "1";
  env["LIBSPLIT_TRACE"] = trace;
  env["LIBSPLIT_INDIRECT"] = indirect ? "1" : "0";
  return env;
}

struct SplitRun {
  std::string out, log;
  uint64_t bytes_in = 0;      // sum of "N B in" over every launch line
  bool merged = false;
  std::map<uint64_t, std::set<unsigned>> devices;  // launch -> devices of its trace rows
};

SplitRun run(const std::string& scenario, const std::string& devices, bool indirect) {
  static int serial = 0;
  std::string trace = temp_dir() + "/trace" + std::to_string(++serial) + ".csv";
  auto r = run_child({INDIRECT_APP, scenario}, shim_env(devices, indirect, trace));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  SplitRun out;
  out.out = r.out;
  out.log = r.err;
  std::istringstream log(r.err);
  for (std::string line; std::getline(log, line);) {
    if (line.find(" split over ") == std::string::npos) continue;
    out.merged |= line.find("| merged") != std::string::npos;
    for (size_t at = line.find(" B in"); at != std::string::npos; at = line.find(" B in", at + 1)) {
      size_t start = line.rfind(' ', at - 1) + 1;
      out.bytes_in += std::stoull(line.substr(start, at - start));
    }
  }
  std::ifstream csv(trace);
  for (std::string line; std::getline(csv, line);) {
    if (line.empty() || !isdigit(static_cast<unsigned char>(line[0]))) continue;  // header
    std::istringstream row(line);
    std::string launch, kernel, device;
    std::getline(row, launch, ',');
    std::getline(row, kernel, ',');
    std::getline(row, device, ',');
    out.devices[std::stoull(launch)].insert(unsigned(std::stoul(device)));
  }
  return out;
}

struct Case {
  std::string scenario;
  bool fewer_bytes;  // the inspection must move fewer bytes than whole buffers
  bool merge;        // the split must (true) / must not (false) diff-merge
};

class Indirect : public testing::TestWithParam<std::tuple<Case, std::string>> {};

TEST_P(Indirect, SplitsLikeNativeMovingOnlyTouchedBytes) {
  if (access(LIBSPLIT_CC_PATH, X_OK) != 0) GTEST_SKIP() << "libsplit-cc not built";
  const auto& [c, devices] = GetParam();
  const unsigned ndev = devices == "pthread basic" ? 2 : 3;
  auto native = run_child({INDIRECT_APP, c.scenario}, native_env(devices));
  ASSERT_EQ(native.exit_code, 0) << native.err;
  SplitRun with = run(c.scenario, devices, true);
  EXPECT_EQ(with.out, native.out) << with.log;
  ASSERT_FALSE(with.devices.empty()) << with.log;
  for (const auto& [launch, devs] : with.devices)
    EXPECT_EQ(devs.size(), ndev) << "launch " << launch << " did not split\n" << with.log;
  EXPECT_EQ(with.merged, c.merge) << with.log;
  SplitRun without = run(c.scenario, devices, false);
  EXPECT_EQ(without.out, native.out) << without.log;
  if (c.fewer_bytes)
    EXPECT_LT(with.bytes_in, without.bytes_in) << with.log << "\nwithout:\n" << without.log;
  else
    EXPECT_LE(with.bytes_in, without.bytes_in) << with.log << "\nwithout:\n" << without.log;
}

std::string name(const testing::TestParamInfo<std::tuple<Case, std::string>>& info) {
  return std::get<0>(info.param).scenario + (std::get<1>(info.param) == "pthread basic" ? "_2dev" : "_3dev");
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, Indirect,
    testing::Combine(testing::Values(Case{"gather", true, false}, Case{"gather64", true, false},
                                     Case{"gather_device_idx", true, false},
                                     Case{"csr", true, false}, Case{"spmv_bench", true, false},
                                     Case{"scatter_local", true, false},
                                     // Spread indices: every slice's hull covers the whole output.
                                     Case{"scatter_spread", false, true},
                                     // -1 sentinels: out of range, src moves whole.
                                     Case{"sentinel", false, false},
                                     // Index buffer written through another argument: refused.
                                     Case{"aliased", false, false}),
                     testing::Values(std::string("pthread basic"), std::string("pthread basic basic"))),
    name);

// The log reports the per-launch cost, and an unchanged index buffer is
// scanned once: the later launches of the same slicing answer from the cache.
TEST(IndirectCost, ReportedPerLaunchAndCachedWhileIndicesDoNotChange) {
  if (access(LIBSPLIT_CC_PATH, X_OK) != 0) GTEST_SKIP() << "libsplit-cc not built";
  SplitRun r = run("csr", "pthread basic", true);
  std::istringstream log(r.log);
  std::vector<uint64_t> scanned;
  for (std::string line; std::getline(log, line);) {
    size_t at = line.find("index regions of launch ");
    if (at == std::string::npos) continue;
    EXPECT_NE(line.find("(0 unresolved)"), std::string::npos) << line;
    size_t e = line.find(" elements scanned");
    size_t s = line.rfind(' ', e - 1) + 1;
    scanned.push_back(std::stoull(line.substr(s, e - s)));
  }
  ASSERT_EQ(scanned.size(), 4u) << r.log;
  EXPECT_GT(scanned[0], 0u);
  for (size_t i = 1; i < scanned.size(); ++i) EXPECT_EQ(scanned[i], 0u) << r.log;
}

// Chunk schedulers evaluate each chunk's reads through the indices as it is
// handed out; a scatter (written bytes found through an index) never takes
// that path, whose no-merge decision is made before the chunks are known.
TEST(IndirectDynamic, ChunkSchedulersMatchNativeAndScattersStayStatic) {
  if (access(LIBSPLIT_CC_PATH, X_OK) != 0) GTEST_SKIP() << "libsplit-cc not built";
  for (const char* scenario : {"gather", "csr", "gather_device_idx", "scatter_local", "scatter_spread"}) {
    auto native = run_child({INDIRECT_APP, scenario}, native_env("pthread basic"));
    ASSERT_EQ(native.exit_code, 0) << native.err;
    auto r = run_child({INDIRECT_APP, scenario}, shim_env("pthread basic", true, "", "dynamic"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, native.out) << scenario << "\n" << r.err;
    const bool scatter = std::string(scenario).rfind("scatter", 0) == 0;
    EXPECT_EQ(r.err.find("(dynamic)") == std::string::npos, scatter) << scenario << "\n" << r.err;
  }
}

// Indices computed by a kernel live on the devices: the reader reads back
// only what the slices need (the host copy was stale), once.
TEST(IndirectCost, StaleHostIndicesAreReadBackOnce) {
  if (access(LIBSPLIT_CC_PATH, X_OK) != 0) GTEST_SKIP() << "libsplit-cc not built";
  SplitRun r = run("gather_device_idx", "pthread basic", true);
  std::istringstream log(r.log);
  std::vector<uint64_t> back;
  for (std::string line; std::getline(log, line);) {
    if (line.find("index regions of launch ") == std::string::npos) continue;
    size_t e = line.find(" B read back");
    size_t s = line.rfind(' ', e - 1) + 1;
    back.push_back(std::stoull(line.substr(s, e - s)));
  }
  ASSERT_EQ(back.size(), 2u) << r.log;
  EXPECT_GT(back[0], 0u) << r.log;
  EXPECT_LE(back[0], 8192u * 4) << r.log;
  EXPECT_EQ(back[1], 0u) << r.log;
}

}  // namespace
