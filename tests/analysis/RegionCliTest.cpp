// libsplit-cc --regions / --trace: the two option rows of the region side.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace {

std::string run(const std::string& args, int* status) {
  std::string cmd = std::string("'") + LIBSPLIT_CC + "' --no-cache " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  if (!p) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  *status = pclose(p);
  return out;
}

const std::string kVadd = std::string(LIBSPLIT_CORPUS_DIR) + "/vadd.cl";
const std::string kGather = std::string(LIBSPLIT_CORPUS_DIR) + "/gather_index.cl";

}  // namespace

TEST(RegionCli, RegionsPrintsFormulasAndShare) {
  int status = -1;
  std::string out = run("--regions '" + kVadd + "'", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("kernel vadd"), std::string::npos) << out;
  EXPECT_NE(out.find("write: if gid0 <= "), std::string::npos) << out;
  EXPECT_NE(out.find("known regions: 3 of 3 buffer arguments"), std::string::npos) << out;
  out = run("--regions '" + kGather + "'", &status);
  EXPECT_EQ(status, 0) << out;
  // The index comes from arg 0 (never written): resolved at launch.
  EXPECT_NE(out.find("(load_u32 0 (* gid0 4))"), std::string::npos) << out;
  EXPECT_NE(out.find("known regions: 3 of 3 buffer arguments (1 resolved at launch from index buffers)"),
            std::string::npos)
      << out;
}

TEST(RegionCli, TraceInstrumentsEveryBuffer) {
  int status = -1;
  std::string out = run("--trace '" + kVadd + "'", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out.rfind("// TRACED vadd 0,1,2\n", 0), 0u) << out;
  EXPECT_NE(out.find("__global uint* __ls_w_c, ulong4 __ls_slice)"), std::string::npos) << out;
  EXPECT_NE(out.find("__ls_mark(__ls_w_c, __ls_slice,"), std::string::npos) << out;
}
