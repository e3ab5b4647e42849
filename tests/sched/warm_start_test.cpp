#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "device_model.h"
#include "simulate.h"
#include "warm_start.h"

namespace libsplit::sched {
namespace {

namespace fs = std::filesystem;

class WarmStart : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/libsplit-sched-test-XXXXXX";
    ASSERT_TRUE(mkdtemp(pattern));
    root_ = pattern;
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string root_;
};

LaunchKey key() { return {"kern", 2, {1024, 64, 1}, {16, 16, 1}, 0}; }

TEST_F(WarmStart, SaveLoadRoundTripWithPrivatePermissions) {
  std::vector<DeviceInfo> devices = {{"a", false, 4, 1000}, {"b", true, 16, 1500}};
  WarmStartStore store(root_ + "/sched", devices);
  EXPECT_FALSE(store.load(key()));
  ASSERT_TRUE(store.save(key(), {std::nullopt, {0.25, 0.75}}));
  std::optional<StoredDecision> loaded = store.load(key());
  ASSERT_TRUE(loaded);
  EXPECT_FALSE(loaded->whole_device);
  EXPECT_DOUBLE_EQ(loaded->shares[1], 0.75);

  struct stat info;
  ASSERT_EQ(stat((root_ + "/sched").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  ASSERT_EQ(stat(store.path_for(key()).c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  for (const auto& entry : fs::directory_iterator(root_ + "/sched"))  // no temp file left
    EXPECT_EQ(entry.path().extension(), ".txt");

  ASSERT_TRUE(store.save(key(), {1u, {0, 1}}));
  EXPECT_EQ(store.load(key())->whole_device.value_or(9), 1u);

  // Another device set or another NDRange does not see it.
  WarmStartStore other(root_ + "/sched", {{"a", false, 4, 1000}, {"c", true, 16, 1500}});
  EXPECT_FALSE(other.load(key()));
  LaunchKey bigger = key();
  bigger.global[0] = 2048;
  EXPECT_FALSE(store.load(bigger));
}

// The same GPUs reached through PoCL-Remote carry the local devices' names
// and figures: their decisions and opening verdicts stay apart.
TEST_F(WarmStart, RemoteTwinsOfTheLocalDevicesKeepTheirOwnDecisions) {
  std::vector<DeviceInfo> local = {{"gpu", true, 132, 1980}, {"gpu", true, 132, 1980}};
  std::vector<DeviceInfo> remote = local;
  for (DeviceInfo& d : remote) d.remote = true;
  WarmStartStore local_store(root_ + "/sched", local), remote_store(root_ + "/sched", remote);
  ASSERT_TRUE(remote_store.save(key(), {0u, {1, 0}}));
  ASSERT_TRUE(remote_store.remember_app("app --size large", WarmStartStore::Opening::lost));
  EXPECT_FALSE(local_store.load(key()));
  EXPECT_EQ(local_store.app_opening("app --size large"), WarmStartStore::Opening::unknown);
  EXPECT_EQ(remote_store.app_opening("app --size large"), WarmStartStore::Opening::lost);
}

// Every opening verdict reads back as written; unknown removes the file.
TEST_F(WarmStart, OpeningVerdictsReadBackAsWritten) {
  WarmStartStore store(root_ + "/sched", {{"gpu", true, 132, 1980}, {"gpu", true, 132, 1980}});
  using Opening = WarmStartStore::Opening;
  for (Opening verdict : {Opening::paid, Opening::lost, Opening::untried, Opening::unknown}) {
    ASSERT_TRUE(store.remember_app("./gemm --size large", verdict));
    EXPECT_EQ(store.app_opening("./gemm --size large"), verdict);
  }
  EXPECT_EQ(store.app_opening("./gemm --size medium"), Opening::unknown);
}

// A paid verdict keeps how many groups of devices paid; every one unless said.
TEST_F(WarmStart, APaidVerdictReadsBackWithItsGroups) {
  WarmStartStore store(root_ + "/sched", {{"gpu", true, 132, 1980}, {"gpu", true, 132, 1980}});
  using Opening = WarmStartStore::Opening;
  unsigned groups = 0;
  ASSERT_TRUE(store.remember_app("./2mm", Opening::paid, "why", 1));
  EXPECT_EQ(store.app_opening("./2mm", &groups), Opening::paid);
  EXPECT_EQ(groups, 1u);
  ASSERT_TRUE(store.remember_app("./2mm", Opening::paid));
  EXPECT_EQ(store.app_opening("./2mm", &groups), Opening::paid);
  EXPECT_EQ(groups, kAllGroups);
  ASSERT_TRUE(store.remember_app("./2mm", Opening::lost, "", 1));
  EXPECT_EQ(store.app_opening("./2mm", &groups), Opening::lost);
  EXPECT_EQ(groups, kAllGroups) << "only a paid verdict names groups";
}

// A lost verdict keeps how many runs it was kept and when it is tried
// again, and the figures of the run that lost; files without the count
// (written before it) read as none kept.
TEST_F(WarmStart, ALostVerdictReadsBackWithItsRetryCount) {
  WarmStartStore store(root_ + "/sched", {{"gpu", true, 132, 1980}, {"gpu", true, 132, 1980}});
  using Opening = WarmStartStore::Opening;
  WarmStartStore::Retry retry{};
  ASSERT_TRUE(store.remember_app("./3mm", Opening::lost, "splits would save 0.01 s", kAllGroups, {2, 8, ""}));
  EXPECT_EQ(store.app_opening("./3mm", nullptr, &retry), Opening::lost);
  EXPECT_EQ(retry.runs, 2u);
  EXPECT_EQ(retry.after, 8u);
  EXPECT_EQ(retry.why, "splits would save 0.01 s");
  ASSERT_TRUE(store.remember_app("./3mm", Opening::lost, "figures"));
  EXPECT_EQ(store.app_opening("./3mm", nullptr, &retry), Opening::lost);
  EXPECT_EQ(retry.runs, 0u);
  EXPECT_EQ(retry.after, 0u);
  EXPECT_EQ(retry.why, "figures");
}

TEST_F(WarmStart, CorruptFilesAreIgnored) {
  std::vector<DeviceInfo> devices = {{"a", false, 4, 1000}, {"b", true, 16, 1500}};
  WarmStartStore store(root_, devices);
  ASSERT_TRUE(store.save(key(), {std::nullopt, {0.5, 0.5}}));
  std::string path = store.path_for(key());
  std::string text;
  {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (std::string broken : {std::string(""), text.substr(0, text.size() / 2),
                             text.substr(0, text.rfind("shares")) + "shares 0.5 nan\n",
                             text.substr(0, text.rfind("shares")) + "shares 0.9 0.9\n"}) {
    std::ofstream(path) << broken;
    EXPECT_FALSE(store.load(key())) << broken;
  }
}

TEST_F(WarmStart, EnvironmentSelectsTheDirectory) {
  setenv("LIBSPLIT_CACHE_DIR", root_.c_str(), 1);
  unsetenv("LIBSPLIT_WARMSTART");
  EXPECT_EQ(WarmStartStore::directory_from_environment(), root_ + "/sched");
  setenv("LIBSPLIT_WARMSTART", "0", 1);
  EXPECT_EQ(WarmStartStore::directory_from_environment(), "");
  EXPECT_TRUE(SchedulerOptions::from_environment().warm_start_dir.empty());
  unsetenv("LIBSPLIT_WARMSTART");
  unsetenv("LIBSPLIT_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/somewhere", 1);
  EXPECT_EQ(WarmStartStore::directory_from_environment(), "/somewhere/libsplit/sched");
  unsetenv("XDG_CACHE_HOME");
}

TEST_F(WarmStart, SecondRunStartsBalanced) {
  sim::Model model;
  ASSERT_TRUE(sim::make_model("hetero3", 0, &model, nullptr));
  SchedulerOptions options;
  options.warm_start_dir = root_ + "/sched";
  options.allow_whole = false;
  sim::SimulationOptions sim;
  sim.launches = 12;
  {
    std::unique_ptr<Scheduler> first = make_scheduler("broyden", sim::device_infos(model), options);
    std::vector<sim::LaunchResult> cold = sim::simulate(*first, model, sim);
    EXPECT_GT(cold[0].over_optimal(), 0.5);  // uniform start is far off
  }
  std::unique_ptr<Scheduler> second = make_scheduler("broyden", sim::device_infos(model), options);
  std::vector<sim::LaunchResult> warm = sim::simulate(*second, model, sim);
  EXPECT_LE(warm[0].over_optimal(), 0.05);

  // Without the directory the first launch is cold again.
  options.warm_start_dir.clear();
  std::unique_ptr<Scheduler> third = make_scheduler("broyden", sim::device_infos(model), options);
  EXPECT_GT(sim::simulate(*third, model, sim)[0].over_optimal(), 0.5);
}

TEST_F(WarmStart, WholeDecisionIsRememberedToo) {
  sim::Model model;
  ASSERT_TRUE(sim::make_model("tiny", 0, &model, nullptr));
  SchedulerOptions options;
  options.warm_start_dir = root_;
  sim::SimulationOptions sim;
  sim.launches = 10;
  {
    std::unique_ptr<Scheduler> first = make_scheduler("broyden", sim::device_infos(model), options);
    sim::simulate(*first, model, sim);
  }
  std::unique_ptr<Scheduler> second = make_scheduler("broyden", sim::device_infos(model), options);
  std::vector<sim::LaunchResult> warm = sim::simulate(*second, model, sim);
  ASSERT_TRUE(warm[0].whole_device);
  EXPECT_LE(warm[0].over_optimal(), 0.05);
}

}  // namespace
}  // namespace libsplit::sched
