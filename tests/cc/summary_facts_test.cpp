// Facts of the kernel summary on programs written for them.
#include "Compiler.h"

#include <gtest/gtest.h>

using namespace libsplit;

namespace {

ProgramSummary summarize(const std::string& source, std::vector<std::string> options = {}) {
  cc::CompileRequest req;
  req.inputPath = "facts.cl";
  req.source = source;
  req.buildOptions = std::move(options);
  req.useCache = false;
  cc::CompileResult r = cc::compileProgram(req);
  EXPECT_TRUE(r.ok) << r.error << r.diagnostics;
  // What the runtime reads is the JSON: check through it.
  std::string err;
  auto back = parse_summary(r.summaryJson, &err);
  EXPECT_TRUE(back) << err;
  return back ? *back : ProgramSummary{};
}

TEST(SummaryFacts, ArgumentsQualifiersAndAccesses) {
  auto s = summarize(R"(
void store(__global float* p, int i, float v) { p[i] = v; }
__kernel __attribute__((reqd_work_group_size(8, 1, 1))) __attribute__((work_group_size_hint(8, 1, 1)))
void k(__global const float* restrict in, __global float* out, __local float* tmp,
       __constant float* coef, __global int* unused, __global float* inout, const int n, float4 v) {
  size_t i = get_global_id(0), l = get_local_id(0);
  tmp[l] = in[i] * coef[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  store(out, (int)i, tmp[(l + 1) % 8] + v.x + n);
  inout[i] += 1.0f;
}
)");
  const KernelSummary* k = s.find("k");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->args.size(), 8u);
  const ArgSummary &in = k->args[0], &out = k->args[1], &tmp = k->args[2], &coef = k->args[3],
                   &unused = k->args[4], &inout = k->args[5], &n = k->args[6], &v = k->args[7];
  EXPECT_EQ(in.name, "in");
  EXPECT_EQ(in.type, "float*");
  EXPECT_TRUE(in.is_pointer && in.is_const && in.is_restrict && in.reads && !in.writes);
  EXPECT_EQ(in.address_space, AddressSpace::Global);
  EXPECT_EQ(in.size, 8u);
  EXPECT_TRUE(out.writes && !out.reads && !out.is_const && !out.is_restrict);
  EXPECT_EQ(tmp.address_space, AddressSpace::Local);
  EXPECT_TRUE(tmp.reads && tmp.writes);
  EXPECT_EQ(coef.address_space, AddressSpace::Constant);
  EXPECT_TRUE(coef.is_const && coef.reads);
  EXPECT_FALSE(unused.reads || unused.writes);
  EXPECT_TRUE(inout.reads && inout.writes && !inout.atomics);
  EXPECT_FALSE(n.is_pointer);
  EXPECT_TRUE(n.is_const);
  EXPECT_EQ(n.type, "int");
  EXPECT_EQ(n.size, 4u);
  EXPECT_EQ(v.type, "float4");
  EXPECT_EQ(v.size, 16u);
  EXPECT_EQ(k->reqd_work_group_size[0], 8u);
  EXPECT_EQ(k->reqd_work_group_size[1], 1u);
  EXPECT_EQ(k->work_group_size_hint[0], 8u);
  EXPECT_TRUE(k->uses_barrier);
  EXPECT_TRUE(k->uses_local_memory);
  EXPECT_FALSE(k->uses_global_atomics);
  EXPECT_TRUE(k->splittable);
  ASSERT_EQ(k->hidden_args.size(), 1u);
  EXPECT_EQ(k->hidden_args[0].name, "__libsplit_ctx");
}

TEST(SummaryFacts, PlainKernelUsesNothingSpecial) {
  auto s = summarize("__kernel void k(__global int* o) { o[get_global_id(0)] = 1; }\n");
  const KernelSummary* k = s.find("k");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(k->uses_barrier || k->uses_local_memory || k->uses_images ||
               k->uses_global_atomics);
  EXPECT_EQ(k->reqd_work_group_size[0], 0u);
}

TEST(SummaryFacts, LocalVariablesCountAsLocalMemory) {
  auto s = summarize(
      "__kernel void k(__global int* o) { __local int t[4]; t[get_local_id(0)] = 1;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE); o[get_global_id(0)] = t[0]; }\n");
  ASSERT_NE(s.find("k"), nullptr);
  EXPECT_TRUE(s.find("k")->uses_local_memory);
  EXPECT_TRUE(s.find("k")->uses_barrier);
}

// (Except reductions with unused results: reduction_summary_test.)
TEST(SummaryFacts, GlobalAtomicsAreNotSplittable) {
  auto s = summarize(R"(
void bump(volatile __global int* c) { atomic_cmpxchg(c, 0, 1); }
__kernel void direct(__global int* c) { c[1] = atomic_add(c, 1); }
__kernel void via_helper(__global int* c, __global int* plain) { bump(c); plain[0] = 1; }
__kernel void local_only(__global int* o) {
  __local int n;
  if (get_local_id(0) == 0) n = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&n);
  barrier(CLK_LOCAL_MEM_FENCE);
  o[get_group_id(0)] = n;
}
)");
  for (const char* name : {"direct", "via_helper"}) {
    const KernelSummary* k = s.find(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_TRUE(k->uses_global_atomics) << name;
    EXPECT_FALSE(k->splittable) << name;
    EXPECT_NE(k->not_splittable_reason.find("global atomics"), std::string::npos);
    EXPECT_TRUE(k->args[0].atomics) << name;
  }
  EXPECT_FALSE(s.find("via_helper")->args[1].atomics);
  const KernelSummary* local = s.find("local_only");
  ASSERT_NE(local, nullptr);
  EXPECT_FALSE(local->uses_global_atomics);
  EXPECT_TRUE(local->splittable) << local->not_splittable_reason;
}

TEST(SummaryFacts, ImagesAreNotSplittable) {
  auto s = summarize(R"(
__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
__kernel void blur(__read_only image2d_t src, __global float4* out) {
  int2 p = (int2)(get_global_id(0), get_global_id(1));
  out[p.y * get_global_size(0) + p.x] = read_imagef(src, smp, p);
}
)");
  const KernelSummary* k = s.find("blur");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->uses_images);
  EXPECT_TRUE(k->args[0].is_image);
  EXPECT_FALSE(k->splittable);
  EXPECT_NE(k->not_splittable_reason.find("images"), std::string::npos);
  EXPECT_TRUE(k->args[1].writes);
}

TEST(SummaryFacts, PointersEscapingAreConservative) {
  auto s = summarize(R"(
__kernel void k(__global int* a, __global int* b) {
  __global int* ptrs[2] = {a, b};
  ptrs[get_global_id(0) & 1][0] = 1;
}
__kernel void vec(__global const float* a, __global float* b) {
  vstore4(vload4(get_global_id(0), a), get_global_id(0), b);
}
)");
  const KernelSummary* k = s.find("k");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->args[0].writes && k->args[1].writes);
  const KernelSummary* v = s.find("vec");
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(v->args[0].reads && !v->args[0].writes);
  EXPECT_TRUE(v->args[1].writes && !v->args[1].reads);
}

TEST(SummaryFacts, AccessesThroughCopiesSelectsAndHelpers) {
  auto s = summarize(R"(
typedef struct { float a, b, c, d, e, f, g, h; } Big;
void copy_big(__global Big* dst, __global const Big* src) { *dst = *src; }
int fetch(__global const int* p, int i) { return p[i]; }
__kernel void k(__global Big* dst, __global const Big* src, __global int* x, __global int* y,
                __global int* z, __local int* lbuf, __global const int* gsrc) {
  size_t i = get_global_id(0);
  copy_big(&dst[i], &src[i]);
  __global int* pick = (i & 1) ? x : y;   // select of two arguments
  pick[i] = fetch(z, (int)i);
  event_t e = async_work_group_copy(lbuf, gsrc, 4, 0);
  wait_group_events(1, &e);
  atomic_add(&lbuf[0], 1);
}
)");
  const KernelSummary* k = s.find("k");
  ASSERT_NE(k, nullptr);
  const auto& a = k->args;
  EXPECT_TRUE(a[0].writes && !a[0].reads) << "struct copy destination";
  EXPECT_TRUE(a[1].reads && !a[1].writes) << "struct copy source";
  EXPECT_TRUE(a[2].writes && !a[2].reads);
  EXPECT_TRUE(a[3].writes && !a[3].reads);
  EXPECT_TRUE(a[4].reads && !a[4].writes) << "read in a helper";
  EXPECT_TRUE(a[5].writes && a[5].atomics) << "async copy target + local atomics";
  // The summary ORs in the region analysis' flags, conservative (read+write)
  // on async copies; ArgAccess alone says read-only (arg_access_test).
  EXPECT_TRUE(a[6].reads) << "async copy source";
  EXPECT_FALSE(k->uses_global_atomics);
  EXPECT_TRUE(k->splittable) << k->not_splittable_reason;
  EXPECT_TRUE(k->uses_local_memory);
}

}  // namespace
