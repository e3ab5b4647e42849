// The libsplit-cc command line: diagnostics and exit codes, -o, --help,
// build options, and the on-disk cache (hit, corrupt entry, key).
#include "test_util.h"

#include "libsplit/summary.h"

#include <gtest/gtest.h>

#include <regex>
#include <sys/stat.h>

using namespace cctest;

namespace {

const char* kProgram = R"(// scale by a -D factor
__kernel void scale(__global const float* in, __global float* out) {
  size_t i = get_global_id(0);
  out[i] = in[i] * FACTOR + (float)get_group_id(0);
}
)";

class Tool : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = makeTempDir();
    cache = dir + "/cache";
    input = dir + "/scale.cl";
    writeFile(input, kProgram);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  ToolRun run(const std::string& args) { return runTool(args, dir); }
  std::string cacheArgs() const { return "--time --cache-dir '" + cache + "' "; }

  std::string dir, cache, input;
};

TEST_F(Tool, BadProgramGivesClangDiagnosticsAndExit1) {
  std::string bad = dir + "/bad.cl";
  writeFile(bad, "__kernel void k(__global int* p) {\n  int x = 1;\n  p[0] = y + x;\n}\n");
  ToolRun r = run("--no-cache '" + bad + "'");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(std::regex_search(r.err, std::regex("bad\\.cl:3:10: error: use of undeclared identifier 'y'")))
      << r.err;
  EXPECT_TRUE(r.out.empty());
  // Errors from -D options are diagnosed the same way.
  r = run("--no-cache '" + input + "'");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_TRUE(std::regex_search(r.err, std::regex("scale\\.cl:4:\\d+: error: use of undeclared identifier 'FACTOR'")))
      << r.err;
}

TEST_F(Tool, OutputDirGetsBothFilesAndTheSummaryParses) {
  std::string out = dir + "/out/nested";
  ToolRun r = run("--no-cache -o '" + out + "' '" + input + "' -- -DFACTOR=2.0f");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << "-o alone prints nothing";
  std::string source = readFile(out + "/partition-ready.cl");
  EXPECT_NE(source.find("__kernel void scale(__global const float* in, __global float* out, "
                        "ulong4 __libsplit_ctx)"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("#line 1 \"" + input + "\""), std::string::npos);
  std::string err;
  auto summary = libsplit::parse_summary(readFile(out + "/summary.json"), &err);
  ASSERT_TRUE(summary) << err;
  const libsplit::KernelSummary* k = summary->find("scale");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->splittable);
  ASSERT_EQ(k->args.size(), 2u);
  EXPECT_TRUE(k->args[0].reads);
  EXPECT_FALSE(k->args[0].writes);
  EXPECT_TRUE(k->args[1].writes);
}

TEST_F(Tool, PrintModes) {
  ToolRun r = run("--no-cache --print-source '" + input + "' -- -DFACTOR=2.0f");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("#define get_group_id(d)"), std::string::npos);
  r = run("--no-cache --json '" + input + "' -- -DFACTOR=2.0f");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(libsplit::parse_summary(r.out));
  r = run("--no-cache '" + input + "' -- -DFACTOR=2.0f");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("kernel scale: splittable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("arg 1 out: global float* -- writes"), std::string::npos) << r.out;
}

// Regions printed without a device's macros may differ from those the shim
// uses: the tool says which macros it analysed with.
TEST_F(Tool, SaysWhichMacrosTheRegionsComeFrom) {
  ToolRun r = run("--no-cache --regions '" + input + "' -- -DFACTOR=2.0f");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("analysed with Clang's predefined OpenCL macros"), std::string::npos) << r.err;
  r = run("--no-cache --device-macros __OPENCL_VERSION__=300 --regions '" + input + "' -- -DFACTOR=2.0f");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err.find("predefined OpenCL macros"), std::string::npos) << r.err;
}

TEST_F(Tool, HelpDocumentsEveryOptionAndBadUsageIsExit2) {
  ToolRun r = run("--help");
  EXPECT_EQ(r.exitCode, 0);
  for (const char* opt : {"-o DIR", "--no-cache", "--cache-dir DIR", "--print-source", "--time",
                          "--json", "--resource-dir DIR", "--help"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  EXPECT_EQ(run("--frobnicate '" + input + "'").exitCode, 2);
  EXPECT_EQ(run("").exitCode, 2);
  EXPECT_EQ(run("-o").exitCode, 2);
}

TEST_F(Tool, AppBuildOptionsAreFilteredNotRejected) {
  ToolRun r = run("--no-cache '" + input +
                  "' -- '-D FACTOR=3.0f -cl-mad-enable -cl-opt-disable -Werror' -cl-std=CL1.2 -g");
  EXPECT_EQ(r.exitCode, 0) << r.err;
}

TEST_F(Tool, SecondRunIsServedFromTheCache) {
  std::string args = cacheArgs() + "--print-source '" + input + "' -- -DFACTOR=2.0f";
  ToolRun first = run(args);
  ASSERT_EQ(first.exitCode, 0) << first.err;
  EXPECT_NE(first.err.find(", compiled"), std::string::npos) << first.err;
  ToolRun second = run(args);
  ASSERT_EQ(second.exitCode, 0) << second.err;
  EXPECT_NE(second.err.find("from cache"), std::string::npos) << second.err;
  EXPECT_EQ(first.out, second.out);

  struct stat st {};
  ASSERT_EQ(::stat(cache.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(cache)) {
    ASSERT_EQ(::stat(e.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << e.path();
    EXPECT_EQ(e.path().extension(), ".entry") << "temp file left behind: " << e.path();
    ++entries;
  }
  EXPECT_EQ(entries, 1);

  // Other options: another key.
  ToolRun other = run(cacheArgs() + "'" + input + "' -- -DFACTOR=3.0f");
  EXPECT_NE(other.err.find(", compiled"), std::string::npos) << other.err;
  // LIBSPLIT_CACHE_DIR is honoured when --cache-dir is not given.
  std::string envCache = dir + "/env-cache";
  ::setenv("LIBSPLIT_CACHE_DIR", envCache.c_str(), 1);
  ToolRun viaEnv1 = run("--time '" + input + "' -- -DFACTOR=2.0f");
  ToolRun viaEnv2 = run("--time '" + input + "' -- -DFACTOR=2.0f");
  ::unsetenv("LIBSPLIT_CACHE_DIR");
  EXPECT_NE(viaEnv1.err.find(", compiled"), std::string::npos) << viaEnv1.err;
  EXPECT_NE(viaEnv2.err.find("from cache"), std::string::npos) << viaEnv2.err;
  EXPECT_TRUE(std::filesystem::exists(envCache));
}

TEST_F(Tool, CorruptCacheEntriesAreRebuilt) {
  std::string args = cacheArgs() + "--print-source '" + input + "' -- -DFACTOR=2.0f";
  ToolRun first = run(args);
  ASSERT_EQ(first.exitCode, 0) << first.err;
  std::string entry;
  for (const auto& e : std::filesystem::directory_iterator(cache)) entry = e.path().string();
  ASSERT_FALSE(entry.empty());
  std::string good = readFile(entry);
  const std::string corruptions[] = {
      "garbage",
      good.substr(0, good.size() - 10),               // truncated
      good.substr(0, good.size() - 40) + std::string(40, 'x'),  // summary damaged
      "",
  };
  for (const std::string& bad : corruptions) {
    writeFile(entry, bad);
    ToolRun r = run(args);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find(", compiled"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, first.out);
    EXPECT_EQ(readFile(entry), good) << "the entry is rewritten";
    ToolRun again = run(args);
    EXPECT_NE(again.err.find("from cache"), std::string::npos) << again.err;
  }
}

TEST_F(Tool, ChangedHeadersInvalidateTheCacheEntry) {
  writeFile(dir + "/factor.h", "#define FACTOR 2.0f\n");
  writeFile(input, std::string("#include \"factor.h\"\n") + kProgram);
  std::string args = cacheArgs() + "--print-source '" + input + "' -- -I '" + dir + "'";
  ToolRun first = run(args);
  ASSERT_EQ(first.exitCode, 0) << first.err;
  EXPECT_NE(first.err.find(", compiled"), std::string::npos) << first.err;
  EXPECT_NE(run(args).err.find("from cache"), std::string::npos);
  writeFile(dir + "/factor.h", "#define FACTOR 3.0f /* changed */\n");
  ToolRun changed = run(args);
  EXPECT_NE(changed.err.find(", compiled"), std::string::npos) << changed.err;
  writeFile(dir + "/factor.h", "#define FACTOR undeclared_thing\n");
  EXPECT_EQ(run(args).exitCode, 1) << "a header now broken must not be served from the cache";
}

TEST_F(Tool, AnUnwritableCacheIsNotAnError) {
  writeFile(dir + "/not-a-dir", "x");
  ToolRun r = run("--verbose --time --cache-dir '" + dir + "/not-a-dir/cache' --print-source '" +
                  input + "' -- -DFACTOR=2.0f");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("__libsplit_ctx"), std::string::npos);
  EXPECT_NE(r.err.find("cache not written"), std::string::npos) << r.err;
}

TEST_F(Tool, CachedSourceNamesTheCurrentFile) {
  std::string copy = dir + "/renamed.cl";
  writeFile(copy, kProgram);
  ASSERT_EQ(run(cacheArgs() + "'" + input + "' -- -DFACTOR=2.0f").exitCode, 0);
  ToolRun r = run(cacheArgs() + "--print-source '" + copy + "' -- -DFACTOR=2.0f");
  ASSERT_EQ(r.exitCode, 0);
  EXPECT_NE(r.err.find("from cache"), std::string::npos);
  EXPECT_NE(r.out.find("#line 1 \"" + copy + "\""), std::string::npos);
}

}  // namespace
