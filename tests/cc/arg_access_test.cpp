// analysis/ArgAccess on the prepared IR of small kernels, without the
// region analysis (which the summary ORs in).
#include "ArgAccess.h"
#include "Frontend.h"
#include "PrepareIR.h"

#include <gtest/gtest.h>
#include <llvm/IR/Module.h>

using namespace libsplit;

namespace {

struct Access {
  bool r, w, a;
};

// The analysis of each argument of `kernel` in `source` (empty on failure).
std::vector<ArgAccess> analyzed(const std::string& source, const std::string& kernel) {
  cc::FrontendInput in{"access.cl", source, {}, "/usr/lib/llvm-16/lib/clang/16", ""};
  cc::FrontendOutput out = cc::runFrontend(in);
  EXPECT_TRUE(out.ok) << out.error << out.diagnostics;
  if (!out.ok) return {};
  cc::prepareModule(*out.module);
  const llvm::Function* f = out.module->getFunction(kernel);
  EXPECT_NE(f, nullptr);
  if (!f) return {};
  return analyzeArgAccess(*f);
}

std::vector<Access> accessOf(const std::string& source, const std::string& kernel) {
  std::vector<Access> v;
  for (const ArgAccess& a : analyzed(source, kernel)) v.push_back({a.reads, a.writes, a.atomics});
  return v;
}

// The store unit of each argument (0: never written).
std::vector<unsigned> storeUnits(const std::string& source, const std::string& kernel) {
  std::vector<unsigned> v;
  for (const ArgAccess& a : analyzed(source, kernel)) v.push_back(a.store_unit);
  return v;
}

// A merge of device copies compares and copies whole units of this size: it
// must never exceed what each store writes whole (or two devices' neighbouring
// stores would overwrite each other) and should reach it (or racing stores
// tear).
TEST(ArgAccess, StoreUnitIsTheWidestUnitEveryStoreWritesWhole) {
  auto v = storeUnits(R"(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef struct { float x; int y; } Pair;
void put(__global double* p, int i) { p[i] = i; }
__kernel void k(__global float* f, __global double* d, __global uchar* c, __global float* mixed,
                __global float* v4, __global float* vs, __global float4* whole4, __global Pair* pairs,
                __global const float* in, __global long* helper, __global float* escaped,
                __global short* halves) {
  int i = get_global_id(0);
  f[i] = in[i];
  d[i] = in[i];
  c[i] = (uchar)i;
  mixed[i] = in[i];
  ((__global uchar*)mixed)[i + 64] = 1;
  vstore4(vload4(i, in), i, vs);
  whole4[i] = (float4)(in[i]);
  pairs[i].x = in[i];
  pairs[i].y = i;
  put((__global double*)helper, i);
  *(__global ulong*)escaped = (ulong)escaped;
  halves[i] = (short)i;
}
)", "k");
  ASSERT_EQ(v.size(), 12u);
  EXPECT_EQ(v[0], 4u) << "float stores";
  EXPECT_EQ(v[1], 8u) << "double stores";
  EXPECT_EQ(v[2], 1u) << "char stores";
  EXPECT_EQ(v[3], 1u) << "float and char stores into one buffer";
  EXPECT_EQ(v[4], 0u) << "never written";
  EXPECT_EQ(v[5], 4u) << "vstore4 of floats is aligned to a float only";
  EXPECT_EQ(v[6], 16u) << "float4 stores";
  EXPECT_EQ(v[7], 4u) << "struct fields";
  EXPECT_EQ(v[8], 0u) << "read only";
  EXPECT_EQ(v[9], 8u) << "through a helper";
  EXPECT_EQ(v[10], 1u) << "escaped";
  EXPECT_EQ(v[11], 2u) << "short stores";
}

TEST(ArgAccess, BuiltinsWithPointersAreKnownByName) {
  auto v = accessOf(R"(
__kernel void k(__local int* lbuf, __global const int* gsrc, __global float* out,
                __global const float* in, __global int* cnt, __global float* ip) {
  event_t e = async_work_group_copy(lbuf, gsrc, 4, 0);
  wait_group_events(1, &e);
  vstore4(vload4(0, in), 0, out);
  atomic_inc(cnt);
  float whole;
  out[8] = fract(in[1], &whole) + modf(in[2], ip);
}
)", "k");
  ASSERT_EQ(v.size(), 6u);
  EXPECT_TRUE(v[0].w && !v[0].r);
  EXPECT_TRUE(v[1].r && !v[1].w);
  EXPECT_TRUE(v[2].w && !v[2].r);
  EXPECT_TRUE(v[3].r && !v[3].w);
  EXPECT_TRUE(v[4].r && v[4].w && v[4].a);
  EXPECT_TRUE(v[5].w && !v[5].r) << "out-parameter of modf";
}

TEST(ArgAccess, FollowsHelpersPhisAndMemcpy) {
  auto v = accessOf(R"(
typedef struct { int v[16]; } Blob;
void put(__global int* p, int i) { p[i] = i; }
__kernel void k(__global int* a, __global const int* b, __global Blob* d, __global const Blob* s,
                __global int* untouched, int n) {
  __global int* p = a;
  for (int i = 0; i < n; ++i) { put(p, i); p += 2; }
  d[0] = s[b[0]];
}
)", "k");
  ASSERT_EQ(v.size(), 6u);
  EXPECT_TRUE(v[0].w && !v[0].r);
  EXPECT_TRUE(v[1].r && !v[1].w);
  EXPECT_TRUE(v[2].w && !v[2].r);
  EXPECT_TRUE(v[3].r && !v[3].w);
  EXPECT_FALSE(v[4].r || v[4].w);
  EXPECT_FALSE(v[5].r || v[5].w) << "not a pointer";
}

TEST(ArgAccess, EscapingPointersAreReadAndWritten) {
  auto v = accessOf(R"(
typedef __global int* gptr;
__kernel void k(__global int* a, __global int* b, __global ulong* out) {
  out[0] = (ulong)a;             // pointer to integer
  __local gptr slots[2];
  slots[get_local_id(0) & 1] = b;  // stored to memory SROA cannot remove
  barrier(CLK_LOCAL_MEM_FENCE);
  *slots[0] = 1;
}
)", "k");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_TRUE(v[0].r && v[0].w);
  EXPECT_TRUE(v[1].r && v[1].w);
  EXPECT_TRUE(v[2].w);
}

TEST(ArgAccess, BuiltinNamesComeOutOfTheMangling) {
  EXPECT_EQ(openclBuiltinName("_Z6vload4mPU3AS1Kf"), "vload4");
  EXPECT_EQ(openclBuiltinName("_Z21async_work_group_copyPU3AS3iPU3AS1Kim9ocl_event"),
            "async_work_group_copy");
  EXPECT_EQ(openclBuiltinName("plain"), "plain");
  EXPECT_EQ(openclBuiltinName("_Z99x"), "_Z99x");
}

}  // namespace
