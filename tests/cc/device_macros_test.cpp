// libsplit-cc analyses with the device's predefined macros (--device-macros),
// merges the summaries of several macro sets (union), keys its cache on them,
// and the tracing oracle preprocesses the same way. Also: every build option
// of the OpenCL 3.0 specification is accepted, and --regions prints
// simplified expressions.
#include "test_util.h"

#include "libsplit/summary.h"

#include <gtest/gtest.h>

#include <regex>

using namespace cctest;

namespace {

// One kernel per kind of device macro; `g` is written only under the macro.
const char* kProgram = R"(__kernel void by_version(__global int* a, __global int* g) {
  size_t i = get_global_id(0);
  a[i] = 1;
#if defined(__OPENCL_VERSION__) && __OPENCL_VERSION__ >= 200
  g[i] = 2;
#endif
}
__kernel void without_fp16(__global int* a, __global int* g) {
  size_t i = get_global_id(0);
  a[i] = 1;
#ifndef cl_khr_fp16
  g[i] = 2;
#endif
}
__kernel void with_images(__global int* a, __global int* g) {
  size_t i = get_global_id(0);
  a[i] = 1;
#ifdef __IMAGE_SUPPORT__
  g[i] = 2;
#endif
}
__kernel void with_extension(__global int* a, __global int* g) {
  size_t i = get_global_id(0);
  a[i] = 1;
#ifdef cl_khr_byte_addressable_store
  g[i] = 2;
#endif
}
__kernel void with_fast_fma(__global int* a, __global int* g) {
  size_t i = get_global_id(0);
  a[i] = 1;
#ifdef FP_FAST_FMAF
  g[i] = 2;
#endif
}
)";

// What PoCL's CPU device predefines (OpenCL 3.0, no fp16, images).
const char* kPoclLike =
    "__OPENCL_VERSION__=300,__OPENCL_C_VERSION__=120,cl_khr_fp64,cl_khr_byte_addressable_store,"
    "__IMAGE_SUPPORT__,__ENDIAN_LITTLE__";
// An older device: OpenCL 1.2, fp16, no images, none of the extensions above.
const char* kOldDevice = "__OPENCL_VERSION__=120,__OPENCL_C_VERSION__=120,cl_khr_fp16,__ENDIAN_LITTLE__";

class DeviceMacros : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = makeTempDir();
    input = dir + "/macros.cl";
    writeFile(input, kProgram);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  libsplit::ProgramSummary summary(const std::string& toolArgs) {
    ToolRun r = runTool("--no-cache --json " + toolArgs + " '" + input + "'", dir);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    std::string err;
    auto s = libsplit::parse_summary(r.out, &err);
    EXPECT_TRUE(s) << err << "\n" << r.out;
    return s ? *s : libsplit::ProgramSummary{};
  }
  static bool writesGuarded(const libsplit::ProgramSummary& s, const char* kernel) {
    const libsplit::KernelSummary* k = s.find(kernel);
    EXPECT_NE(k, nullptr) << kernel;
    return k && k->args.size() == 2 && k->args[1].writes && !k->args[1].write_region.parts.empty();
  }

  std::string dir, input;
};

TEST_F(DeviceMacros, EachKindOfDeviceMacroDecidesWhatIsWritten) {
  libsplit::ProgramSummary pocl = summary(std::string("--device-macros ") + kPoclLike);
  EXPECT_TRUE(writesGuarded(pocl, "by_version"));
  EXPECT_TRUE(writesGuarded(pocl, "without_fp16"));
  EXPECT_TRUE(writesGuarded(pocl, "with_images"));
  EXPECT_TRUE(writesGuarded(pocl, "with_extension"));
  EXPECT_FALSE(writesGuarded(pocl, "with_fast_fma"));

  libsplit::ProgramSummary old = summary(std::string("--device-macros ") + kOldDevice);
  EXPECT_FALSE(writesGuarded(old, "by_version"));
  EXPECT_FALSE(writesGuarded(old, "without_fp16"));
  EXPECT_FALSE(writesGuarded(old, "with_images"));
  EXPECT_FALSE(writesGuarded(old, "with_extension"));
}

TEST_F(DeviceMacros, ClangsOwnMacrosAreNotTheDevices) {
  // Without --device-macros the analysis sees Clang's spir64 macros: no
  // __OPENCL_VERSION__, cl_khr_fp16 defined. This is why the shim passes sets.
  libsplit::ProgramSummary clang = summary("");
  EXPECT_FALSE(writesGuarded(clang, "by_version"));
  EXPECT_FALSE(writesGuarded(clang, "without_fp16"));
}

TEST_F(DeviceMacros, SeveralSetsMergeIntoTheUnionOfRegions) {
  libsplit::ProgramSummary merged =
      summary(std::string("--device-macros ") + kPoclLike + " --device-macros " + kOldDevice +
              " --device-macros " + kPoclLike + ",FP_FAST_FMAF");
  for (const char* k : {"by_version", "without_fp16", "with_images", "with_extension", "with_fast_fma"}) {
    EXPECT_TRUE(writesGuarded(merged, k)) << k;
    EXPECT_TRUE(merged.find(k)->splittable) << k;
  }
  // A part every set found is there once, in what the tool prints (the
  // reader would hide a repeat): `a` is written the same way under all three.
  ToolRun r = runTool("--no-cache --device-macros " + std::string(kPoclLike) + " --device-macros " + kOldDevice +
                          " --device-macros " + kPoclLike + ",FP_FAST_FMAF '" + input + "'",
                      dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const size_t kernel = r.out.find("kernel by_version");
  const size_t region = r.out.find("write region: ", kernel);  // arg 0, a: its first
  ASSERT_TRUE(kernel != std::string::npos && region != std::string::npos) << r.out;
  const std::string a = r.out.substr(region, r.out.find('\n', region) - region);
  EXPECT_EQ(a.find(" U "), std::string::npos) << a;
}

TEST_F(DeviceMacros, DifferentSignaturesAreNotSplittable) {
  writeFile(input, R"(#ifdef cl_khr_fp16
#define COUNT int
#else
#define COUNT long
#endif
__kernel void k(__global int* a, COUNT n) { a[get_global_id(0)] = (int)n; }
)");
  libsplit::ProgramSummary merged = summary(std::string("--device-macros ") + kPoclLike +
                                            " --device-macros " + kOldDevice);
  const libsplit::KernelSummary* k = merged.find("k");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(k->splittable);
  EXPECT_NE(k->not_splittable_reason.find("signature"), std::string::npos) << k->not_splittable_reason;
}

TEST_F(DeviceMacros, ARewriteThatDiffersBetweenSetsIsRefused) {
  // Each set has its own kernel text: one partition-ready program cannot
  // serve both, so libsplit-cc fails (the shim then falls back).
  writeFile(input, R"(#ifdef cl_khr_fp16
__kernel void k(__global int* a, int n) { a[get_global_id(0)] = n; }
#else
__kernel void k(__global int* a, long n) { a[get_global_id(0)] = (int)n; }
#endif
)");
  ToolRun r = runTool("--no-cache --device-macros " + std::string(kPoclLike) + " --device-macros " +
                          kOldDevice + " '" + input + "'",
                      dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("rewrite differs between the devices' predefined macro sets"), std::string::npos)
      << r.err;
}

TEST_F(DeviceMacros, ASetUnderWhichTheProgramDoesNotCompileIsSkipped) {
  // Only a device with images compiles this: the other set cannot be the
  // one the program was built with.
  writeFile(input, R"(#ifndef __IMAGE_SUPPORT__
#error needs images
#endif
__kernel void k(__global int* a) { a[get_global_id(0)] = 1; }
)");
  libsplit::ProgramSummary merged = summary(std::string("--device-macros ") + kPoclLike +
                                            " --device-macros " + kOldDevice);
  ASSERT_NE(merged.find("k"), nullptr);
  ToolRun r = runTool("--no-cache --device-macros " + std::string(kOldDevice) + " '" + input + "'", dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("needs images"), std::string::npos) << r.err;
}

TEST_F(DeviceMacros, TheLanguageVersionFollowsTheSetUnlessTheAppGivesOne) {
  writeFile(input, R"(__kernel void k(__global int* a, __global int* g) {
  a[get_global_id(0)] = __OPENCL_C_VERSION__;
#if __OPENCL_C_VERSION__ >= 200
  g[get_global_id(0)] = 1;
#endif
}
)");
  std::string v3 = "--device-macros __OPENCL_VERSION__=300,__OPENCL_C_VERSION__=300,__opencl_c_int64";
  EXPECT_TRUE(writesGuarded(summary(v3), "k"));
  std::string v12 = "--device-macros __OPENCL_VERSION__=300,__OPENCL_C_VERSION__=120";
  EXPECT_FALSE(writesGuarded(summary(v12), "k"));
}

TEST_F(DeviceMacros, TheCacheKeyHoldsTheMacroSets) {
  std::string cache = dir + "/cache";
  auto run = [&](const std::string& set) {
    return runTool("--time --cache-dir '" + cache + "' --device-macros " + set + " '" + input + "'", dir);
  };
  EXPECT_NE(run(kPoclLike).err.find("compiled"), std::string::npos);
  EXPECT_NE(run(kPoclLike).err.find("from cache"), std::string::npos);
  EXPECT_NE(run(kOldDevice).err.find("compiled"), std::string::npos);
  // The same set written in another order is the same key.
  EXPECT_NE(run(std::string("__ENDIAN_LITTLE__,") + kPoclLike).err.find("from cache"), std::string::npos);
}

TEST_F(DeviceMacros, BadSpecIsAnError) {
  ToolRun r = runTool("--no-cache --device-macros '1BAD=3' '" + input + "'", dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("bad device macro"), std::string::npos) << r.err;
}

TEST_F(DeviceMacros, TheTracingOracleSeesTheDevicesMacros) {
  // The traced program records `g` in without_fp16 only when cl_khr_fp16 is
  // not defined, as on the device.
  ToolRun r = runTool("--no-cache --trace --device-macros " + std::string(kPoclLike) + " '" + input + "'", dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::regex traced("// TRACED without_fp16 0,1\n");
  EXPECT_TRUE(std::regex_search(r.out, traced)) << r.out.substr(0, 600);
  std::string body = r.out.substr(r.out.find("without_fp16("));
  body = body.substr(0, body.find("__kernel void with_images"));
  EXPECT_NE(body.find("__ls_w_g"), std::string::npos) << body;

  r = runTool("--no-cache --trace --device-macros " + std::string(kOldDevice) + " '" + input + "'", dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  body = r.out.substr(r.out.find("without_fp16("));
  body = body.substr(0, body.find("__kernel void with_images"));
  // The write to g is inside an inactive #ifndef: not instrumented.
  size_t guard = body.find("#ifndef cl_khr_fp16");
  ASSERT_NE(guard, std::string::npos) << body;
  EXPECT_EQ(body.find("__ls_w_g", guard), std::string::npos) << body;
}

// Every option of the OpenCL 3.0 specification (5.8.6, clBuildProgram /
// clCompileProgram / clLinkProgram) is accepted: those that change the
// program's meaning reach Clang, the others are ignored by the analysis (the
// device build still gets them).
TEST(BuildOptions, EveryOpenCL30OptionIsAccepted) {
  std::string dir = makeTempDir();
  std::string input = dir + "/k.cl";
  writeFile(input, "__kernel void k(__global float* a) { size_t i = get_global_id(0); a[i] = a[i] * 2.0f + X; }\n");
  const char* kOptions[] = {
      "-D X=1.0f", "-DX=1.0f", "-D X", "-I " , "-cl-single-precision-constant", "-cl-denorms-are-zero",
      "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-opt-disable", "-cl-mad-enable",
      "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
      "-cl-fast-relaxed-math", "-cl-uniform-work-group-size", "-cl-no-subgroup-ifp", "-w",
      "-Werror", "-cl-std=CL1.0", "-cl-std=CL1.1", "-cl-std=CL1.2", "-cl-std=CL2.0", "-cl-std=CL3.0",
      "-cl-kernel-arg-info", "-g", "-create-library", "-enable-link-options", "-x spir",
      "-spir-std=1.2",
  };
  ToolRun base = runTool("--no-cache --regions '" + input + "' -- -DX=1.0f", dir);
  ASSERT_EQ(base.exitCode, 0) << base.err;
  for (std::string opt : kOptions) {
    if (opt == "-I ") opt += "'" + dir + "'";
    std::string extra = opt.rfind("-D", 0) == 0 ? "" : " -DX=1.0f";
    ToolRun r = runTool("--no-cache --regions '" + input + "' -- " + opt + extra, dir);
    EXPECT_EQ(r.exitCode, 0) << opt << ": " << r.err;
    if (opt != "-D X") {
      EXPECT_EQ(r.out, base.out) << opt;
    }
  }
  // All at once, in one option string, as an app passes them.
  std::string all;
  for (std::string opt : kOptions)
    if (opt.rfind("-D", 0) != 0 && opt.rfind("-I", 0) != 0 && opt.rfind("-cl-std", 0) != 0) all += opt + " ";
  ToolRun r = runTool("--no-cache --regions '" + input + "' -- '" + all + "-DX=1.0f -cl-std=CL3.0'", dir);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, base.out);
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// --regions prints regions for people: no zero-valued check terms, constants
// folded, the checks listed once after the region; an indirection reads the
// index from its argument (load_i32 ARG OFFSET).
TEST(Regions, PrintedSimplifiedWithTheirChecksApart) {
  std::string dir = makeTempDir();
  std::string input = dir + "/r.cl";
  writeFile(input, R"(__kernel void k(__global const float* in, __global const int* idx,
                __global float* out, int n) {
  int i = get_global_id(0);
  if (i < n) out[i + 3 - 3] = in[i] + in[idx[i]];
}
)");
  ToolRun r = runTool("--no-cache --regions '" + input + "'", dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.find("(* 0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("-3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("arg 2 out write: if gid0 <= (+ (wrap_i32 (arg 3)) -1): "
                       "[(* (wrap_i32 gid0) 4), (+ (* (wrap_i32 gid0) 4) 3)]   (assuming gid0 fits i32)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("arg 0 in read:  if gid0 <= (+ (wrap_i32 (arg 3)) -1): "
                       "[(* (load_i32 1 (* (wrap_i32 gid0) 4)) 4), (+ (* (load_i32 1 (* (wrap_i32 gid0) 4)) 4) 3)]"),
            std::string::npos)
      << r.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
