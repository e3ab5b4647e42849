// Reduction buffers in the kernel summary: a buffer whose every global atomic
// is one commutative update with its result unused, and that is not otherwise
// loaded or stored, is recorded with its operation and width, and keeps the
// kernel splittable; anything else with global atomics keeps it whole.
#include "Compiler.h"
#include "test_util.h"

#include <gtest/gtest.h>

using namespace libsplit;

namespace {

ProgramSummary summarize(const std::string& source, std::vector<std::string> options = {}) {
  cc::CompileRequest req;
  req.inputPath = "reductions.cl";
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

struct Expected {
  const char* kernel;
  unsigned arg;
  ReductionOp op;
  unsigned bits;
};

TEST(ReductionSummary, CommutativeUpdatesWithUnusedResultsAreReductions) {
  auto s = summarize(R"(
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
__kernel void histogram(__global const uint* in, __global uint* bins, uint n) {
  atomic_inc(&bins[in[get_global_id(0)] % n]);
}
__kernel void sum_int(__global const int* in, __global int* sum) { atomic_add(sum, in[get_global_id(0)]); }
__kernel void sum_long(__global const long* in, __global long* sum) { atom_add(sum, in[get_global_id(0)]); }
__kernel void count_down(__global int* c, __global ulong* d) { atomic_dec(c); atom_dec(d); }
__kernel void take(__global const int* in, __global int* left) { atomic_sub(left, in[get_global_id(0)]); }
__kernel void add_and_sub(__global const int* in, __global int* acc) {
  int v = in[get_global_id(0)];
  if (v > 0) atomic_add(acc, v); else atomic_sub(&acc[1], -v);
  atomic_inc(&acc[2]);
}
__kernel void extremes(__global const int* in, __global int* lo, __global int* hi,
                       __global uint* ulo, __global uint* uhi, __global long* llo, __global ulong* uhi64) {
  int v = in[get_global_id(0)];
  atomic_min(lo, v);
  atomic_max(hi, v);
  atomic_min(ulo, (uint)v);
  atomic_max(uhi, (uint)v);
  atom_min(llo, (long)v);
  atom_max(uhi64, (ulong)v);
}
__kernel void bits(__global const uint* in, __global uint* o, __global uint* a, __global uint* x) {
  uint v = in[get_global_id(0)];
  atomic_or(o, v);
  atomic_and(a, v);
  atomic_xor(x, v);
}
__kernel void through_helper(__global const uint* in, __global uint* bins) {
  __global uint* b = bins + 4;
  for (int i = 0; i < 4; ++i) atomic_add(&b[i], in[get_global_id(0)] >> i);
}
)");
  const Expected want[] = {
      {"histogram", 1, ReductionOp::Add, 32},     {"sum_int", 1, ReductionOp::Add, 32},
      {"sum_long", 1, ReductionOp::Add, 64},      {"count_down", 0, ReductionOp::Add, 32},
      {"count_down", 1, ReductionOp::Add, 64},    {"take", 1, ReductionOp::Add, 32},
      {"add_and_sub", 1, ReductionOp::Add, 32},   {"extremes", 1, ReductionOp::Min, 32},
      {"extremes", 2, ReductionOp::Max, 32},      {"extremes", 3, ReductionOp::UMin, 32},
      {"extremes", 4, ReductionOp::UMax, 32},     {"extremes", 5, ReductionOp::Min, 64},
      {"extremes", 6, ReductionOp::UMax, 64},     {"bits", 1, ReductionOp::Or, 32},
      {"bits", 2, ReductionOp::And, 32},          {"bits", 3, ReductionOp::Xor, 32},
      {"through_helper", 1, ReductionOp::Add, 32},
  };
  for (const Expected& w : want) {
    SCOPED_TRACE(std::string(w.kernel) + " argument " + std::to_string(w.arg));
    const KernelSummary* k = s.find(w.kernel);
    ASSERT_NE(k, nullptr);
    EXPECT_TRUE(k->uses_global_atomics);
    EXPECT_TRUE(k->splittable) << k->not_splittable_reason;
    const ArgSummary& a = k->args.at(w.arg);
    EXPECT_TRUE(a.atomics);
    EXPECT_EQ(reduction_op_name(a.reduction), std::string(reduction_op_name(w.op)));
    EXPECT_EQ(a.reduction_bits, w.bits);
  }
  // The input is read plainly: no reduction.
  EXPECT_EQ(s.find("histogram")->args[0].reduction, ReductionOp::None);
}

TEST(ReductionSummary, C11FetchOpsCountOnlyWhenRelaxed) {
  auto s = summarize(R"(
__kernel void relaxed(__global const int* in, __global atomic_int* sum, __global atomic_uint* m) {
  atomic_fetch_add_explicit(sum, in[get_global_id(0)], memory_order_relaxed);
  atomic_fetch_max_explicit(m, (uint)in[get_global_id(0)], memory_order_relaxed, memory_scope_device);
}
__kernel void seq_cst(__global const int* in, __global atomic_int* sum) {
  atomic_fetch_add(sum, in[get_global_id(0)]);
}
__kernel void acq_rel(__global const int* in, __global atomic_int* sum) {
  atomic_fetch_add_explicit(sum, in[get_global_id(0)], memory_order_acq_rel);
}
__kernel void library_form(__global const int* in, __global atomic_int* sum) {
  __opencl_atomic_fetch_add(sum, in[get_global_id(0)], __ATOMIC_RELAXED, __OPENCL_MEMORY_SCOPE_DEVICE);
}
)",
                     {"-cl-std=CL2.0"});
  const KernelSummary* relaxed = s.find("relaxed");
  ASSERT_NE(relaxed, nullptr);
  EXPECT_TRUE(relaxed->splittable) << relaxed->not_splittable_reason;
  EXPECT_EQ(relaxed->args[1].reduction, ReductionOp::Add);
  EXPECT_EQ(relaxed->args[2].reduction, ReductionOp::UMax);
  for (const char* name : {"seq_cst", "acq_rel", "library_form"}) {
    const KernelSummary* k = s.find(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_FALSE(k->splittable) << name;
    EXPECT_EQ(k->args[1].reduction, ReductionOp::None) << name;
    EXPECT_NE(k->not_splittable_reason.find("global atomics"), std::string::npos) << name;
  }
}

TEST(ReductionSummary, OtherAtomicsKeepTheKernelWhole) {
  auto s = summarize(R"(
__kernel void compact(__global const int* in, __global int* out, __global int* count) {
  int v = in[get_global_id(0)];
  if (v > 0) out[atomic_inc(count)] = v;
}
__kernel void first_writer(__global const uint* in, __global int* seen) {
  atomic_cmpxchg(&seen[in[get_global_id(0)] % 64], 0, 1);
}
__kernel void swap(__global int* slot) { atomic_xchg(slot, (int)get_global_id(0)); }
__kernel void swap_float(__global float* slot) { atomic_xchg(slot, 1.0f); }
__kernel void add_then_max(__global const int* in, __global int* acc) {
  atomic_add(&acc[0], in[get_global_id(0)]);
  atomic_max(&acc[1], in[get_global_id(0)]);
}
__kernel void add_and_store(__global const int* in, __global int* acc) {
  atomic_add(&acc[0], in[get_global_id(0)]);
  if (get_global_id(0) == 0) acc[1] = 7;
}
__kernel void add_and_load(__global int* acc, __global int* out) {
  atomic_add(&acc[0], 1);
  out[get_global_id(0)] = acc[1];
}
__kernel void one_of_two(__global const int* in, __global int* sum, __global int* ticket) {
  atomic_add(sum, in[get_global_id(0)]);
  if (atomic_inc(ticket) == 0) sum[1] = 0;
}
__kernel void sync_builtin(__global int* sum) { __sync_fetch_and_add(sum, 1); }
)");
  struct Case {
    const char* kernel;
    unsigned arg;
    const char* why;  // in not_splittable_reason
  };
  const Case cases[] = {
      {"compact", 2, "result of atomic_inc is used"},
      {"first_writer", 1, "not a reduction update"},
      {"swap", 0, "not a reduction update"},
      {"swap_float", 0, "not a reduction update"},
      {"add_then_max", 1, "mixes atomic add32 and max32"},
      {"add_and_store", 1, "loaded or stored other than by atomics"},
      {"add_and_load", 0, "loaded or stored other than by atomics"},
      {"one_of_two", 2, "global atomics"},
      {"sync_builtin", 0, "global atomics"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.kernel);
    const KernelSummary* k = s.find(c.kernel);
    ASSERT_NE(k, nullptr);
    EXPECT_TRUE(k->uses_global_atomics);
    EXPECT_FALSE(k->splittable);
    EXPECT_NE(k->not_splittable_reason.find(c.why), std::string::npos) << k->not_splittable_reason;
    EXPECT_TRUE(k->args.at(c.arg).atomics);
    EXPECT_EQ(k->args.at(c.arg).reduction, ReductionOp::None);
  }
  // one_of_two: the sum itself is also stored plainly.
  EXPECT_EQ(s.find("one_of_two")->args[1].reduction, ReductionOp::None);
}

TEST(ReductionSummary, LocalAtomicsStayLocal) {
  auto s = summarize(R"(
__kernel void local_then_global(__global const uint* in, __global uint* bins) {
  __local uint part[16];
  uint l = get_local_id(0);
  if (l < 16) part[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&part[in[get_global_id(0)] % 16]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 16) atomic_add(&bins[l], part[l]);
}
)");
  const KernelSummary* k = s.find("local_then_global");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->splittable) << k->not_splittable_reason;
  EXPECT_EQ(k->args[1].reduction, ReductionOp::Add);
  EXPECT_EQ(k->args[1].reduction_bits, 32u);
}

// The readable summary of the command line names the reduction.
TEST(ReductionSummary, PrintedByTheTool) {
  std::string dir = cctest::makeTempDir();
  std::string input = dir + "/hist.cl";
  cctest::writeFile(input,
                    "__kernel void hist(__global const uint* in, __global uint* bins) {\n"
                    "  atomic_inc(&bins[in[get_global_id(0)] & 15]);\n}\n"
                    "__kernel void ticket(__global int* next, __global int* out) {\n"
                    "  out[get_global_id(0)] = atomic_inc(next);\n}\n");
  cctest::ToolRun r = cctest::runTool("--no-cache '" + input + "'", dir);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("kernel hist: splittable"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("arg 1 bins: global uint* -- reads writes atomics (reduction add 32-bit)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("kernel ticket: NOT splittable: global atomics (argument 'next': the result "
                       "of atomic_inc is used)"),
            std::string::npos)
      << r.out;
}

}  // namespace
