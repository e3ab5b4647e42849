// Region analysis on small kernels: OpenCL C -> IR (clang-16) -> printed
// regions compared with the expected text, and a few evaluated checks.
#include "ClToIR.h"
#include "RegionAnnotator.h"

#include "libsplit/region.h"

#include <gtest/gtest.h>

using namespace libsplit;

namespace {

std::string regionsOf(const std::string& source, const std::string& options = "") {
  llvm::LLVMContext ctx;
  std::string err;
  auto M = test::compileCL(source, options, ctx, &err);
  EXPECT_TRUE(M) << err;
  return M ? printRegions(*M) : "";
}

// The line of the printed output that starts with `prefix` (after spaces).
std::string line(const std::string& text, const std::string& prefix) {
  size_t at = text.find(prefix);
  if (at == std::string::npos) return "<no line '" + prefix + "'>";
  return text.substr(at, text.find('\n', at) - at);
}

}  // namespace

TEST(RegionAnalysis, GuardedVectorAdd) {
  std::string r = regionsOf(R"(
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
})");
  const char* guarded =
      "if gid0 <= (+ (+ (wrap_i32 (arg 3)) (* 0 (fits_i32 gid0))) -1): "
      "[(* (wrap_i32 gid0) 4), (+ (* (wrap_i32 gid0) 4) 3)]";
  EXPECT_EQ(line(r, "arg 0 read"), std::string("arg 0 read: ") + guarded);
  EXPECT_EQ(line(r, "arg 0 write"), "arg 0 write: none");
  EXPECT_EQ(line(r, "arg 2 write"), std::string("arg 2 write: ") + guarded);
  EXPECT_EQ(line(r, "arg 2 read"), "arg 2 read: none");
  EXPECT_EQ(r.find("  arg 3 "), std::string::npos);  // the scalar has no line of its own
}

TEST(RegionAnalysis, LoopBecomesRange) {
  std::string r = regionsOf(R"(
__kernel void rowsum(__global const float* m, __global float* out, int cols) {
  int r = get_global_id(0);
  float s = 0;
  for (int c = 0; c < cols; ++c) s += m[r * cols + c];
  out[r] = s;
})");
  EXPECT_EQ(line(r, "arg 0 read"),
            "arg 0 read: [(range (* (wrap_i32 (* gid0 (arg 2))) 4) (+ (* (wrap_i32 (* gid0 (arg 2))) 4) "
            "(* (wrap_u32 (+ (arg 2) -1)) 4))), (+ (range (* (wrap_i32 (* gid0 (arg 2))) 4) (+ (* (wrap_i32 "
            "(* gid0 (arg 2))) 4) (* (wrap_u32 (+ (arg 2) -1)) 4))) 3)]");
  EXPECT_EQ(line(r, "arg 1 write"), "arg 1 write: [(* (wrap_i32 gid0) 4), (+ (* (wrap_i32 gid0) 4) 3)]");
}

// prefetch is a hint: the source keeps the region of its loads, and no
// write (before, the call made both unknown).
TEST(RegionAnalysis, PrefetchTouchesNothing) {
  std::string r = regionsOf(R"(
__kernel void copy(__global const int* src, __global int* dst, int per_item) {
  prefetch(src + per_item * get_global_id(0), per_item);
  for (int i = 0; i < per_item; i++)
    dst[get_global_id(0) * per_item + i] = src[get_global_id(0) * per_item + i];
})");
  EXPECT_EQ(line(r, "arg 0 write"), "arg 0 write: none");
  EXPECT_EQ(line(r, "arg 0 read").find("unknown"), std::string::npos) << r;
  EXPECT_EQ(line(r, "arg 0 read").substr(12), line(r, "arg 1 write").substr(13)) << r;
}

TEST(RegionAnalysis, MatmulFromDefine) {
  std::string r = regionsOf(R"(
__kernel void matmul(__global const float* a, __global const float* b, __global float* c) {
  int col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (int k = 0; k < N; ++k) acc += a[row * N + k] * b[k * N + col];
  c[row * N + col] = acc;
})",
                            "-DN=32");
  EXPECT_EQ(line(r, "arg 1 read"),
            "arg 1 read: [(range (* (wrap_i32 gid0) 4) (+ (* (wrap_i32 gid0) 4) 3968)), "
            "(+ (range (* (wrap_i32 gid0) 4) (+ (* (wrap_i32 gid0) 4) 3968)) 3)]");
  EXPECT_EQ(line(r, "arg 2 write"),
            "arg 2 write: [(* (wrap_i32 (+ gid0 (* gid1 32))) 4), (+ (* (wrap_i32 (+ gid0 (* gid1 32))) 4) 3)]");
}

TEST(RegionAnalysis, IndirectionBecomesLoadOfIndexBuffer) {
  std::string r = regionsOf(R"(
__kernel void gather(__global const float* in, __global const int* idx, __global float* out) {
  size_t i = get_global_id(0);
  out[i] = in[idx[i]];
})");
  // The index is the int at byte 4*gid0 of arg 1, read at launch.
  EXPECT_EQ(line(r, "arg 0 read"), "arg 0 read: [(* (load_i32 1 (* gid0 4)) 4), (+ (* (load_i32 1 (* gid0 4)) 4) 3)]");
  EXPECT_EQ(line(r, "arg 1 read"), "arg 1 read: [(* gid0 4), (+ (* gid0 4) 3)]");
  EXPECT_EQ(line(r, "arg 2 write"), "arg 2 write: [(* gid0 4), (+ (* gid0 4) 3)]");
}

TEST(RegionAnalysis, UnsignedAndLongIndicesKeepTheirType) {
  std::string r = regionsOf(R"(
__kernel void gather(__global const float* in, __global const uint* u, __global const long* l,
                     __global const uchar* c, __global float* out) {
  size_t i = get_global_id(0);
  out[i] = in[u[i]] + in[l[i] + 2] + in[c[i]];
})");
  std::string a0 = line(r, "arg 0 read");
  EXPECT_NE(a0.find("(* (load_u32 1 (* gid0 4)) 4)"), std::string::npos) << a0;
  EXPECT_NE(a0.find("(+ (* (load_i64 2 (* gid0 8)) 4) 8)"), std::string::npos) << a0;
  EXPECT_NE(a0.find("(* (load_u8 3 gid0) 4)"), std::string::npos) << a0;
}

TEST(RegionAnalysis, IndexFromWrittenBufferStaysUnknownWithLine) {
  // The kernel overwrites its index buffer: the contents at launch are not
  // what every work-item reads.
  std::string r = regionsOf(R"(
__kernel void gather(__global const float* in, __global int* idx, __global float* out) {
  size_t i = get_global_id(0);
  out[i] = in[idx[i]];
  idx[i] = 0;
})");
  EXPECT_EQ(line(r, "arg 0 read"), "arg 0 read: unknown: index loaded from the contents of arg 1 (indirection) at line 4");
}

TEST(RegionAnalysis, CsrLoopBoundsFromRowPointers) {
  std::string r = regionsOf(R"(
__kernel void spmv(__global float* y, __global const int* row, __global const int* col,
                   __global const float* val, __global const float* x) {
  int i = get_global_id(0);
  float s = 0.0f;
  for (int k = row[i]; k < row[i + 1]; ++k) s += val[k] * x[col[k]];
  y[i] = s;
})");
  // k runs from row[i] to the last value ScalarEvolution computes,
  // max(row[i] + 1, row[i + 1]) - 1: start and count cancel symbolically.
  const std::string k = "(range (load_i32 1 (* (wrap_i32 gid0) 4)) (wrap_i32 (+ (max (wrap_i32 (+ (load_i32 1 (* "
                        "(wrap_i32 gid0) 4)) 1)) (load_i32 1 (+ (* (wrap_i32 gid0) 4) 4))) -1)))";
  EXPECT_EQ(line(r, "arg 3 read"), "arg 3 read: [(* " + k + " 4), (+ (* " + k + " 4) 3)]");
  EXPECT_EQ(line(r, "arg 4 read"), "arg 4 read: [(* (load_i32 2 (* " + k + " 4)) 4), (+ (* (load_i32 2 (* " + k +
                                       " 4)) 4) 3)]");
}

TEST(RegionAnalysis, ScatterWritesThroughTheIndex) {
  std::string r = regionsOf(R"(
__kernel void scatter(__global const int* idx, __global const float* in, __global float* out) {
  size_t i = get_global_id(0);
  out[idx[i]] = in[i];
})");
  EXPECT_EQ(line(r, "arg 2 write"), "arg 2 write: [(* (load_i32 0 (* gid0 4)) 4), (+ (* (load_i32 0 (* gid0 4)) 4) 3)]");
}

TEST(RegionAnalysis, AtomicsReadAndWrite) {
  std::string r = regionsOf(R"(
__kernel void count(__global volatile int* counters, __global const int* key) {
  size_t i = get_global_id(0);
  atomic_inc(&counters[i % 4]);
  atomic_add(&counters[8], key[i]);
})");
  // i % 4 on a size_t: (uint2)i zero-extended, a value in [0, 3].
  EXPECT_EQ(line(r, "arg 0 read"), "arg 0 read: [32, 35] U [(* (wrap_u2 gid0) 4), (+ (* (wrap_u2 gid0) 4) 3)]");
  EXPECT_EQ(line(r, "arg 0 write"), "arg 0 write: [32, 35] U [(* (wrap_u2 gid0) 4), (+ (* (wrap_u2 gid0) 4) 3)]");
}

TEST(RegionAnalysis, VectorLoadStoreBuiltins) {
  std::string r = regionsOf(R"(
__kernel void vec4(__global const float* a, __global float* b) {
  size_t i = get_global_id(0);
  vstore4(vload4(i, a) * 2.0f, i, b);
})");
  EXPECT_EQ(line(r, "arg 0 read"), "arg 0 read: [(* gid0 16), (+ (* gid0 16) 15)]");
  EXPECT_EQ(line(r, "arg 1 write"), "arg 1 write: [(* gid0 16), (+ (* gid0 16) 15)]");
}

TEST(RegionAnalysis, SelectIsHull) {
  std::string r = regionsOf(R"(
__kernel void sel(__global float* a, int n) {
  int i = get_global_id(0);
  int j = i < n / 2 ? 2 * i : i + 3;
  a[j] = 1.0f;
})");
  EXPECT_NE(line(r, "arg 0 write").find("(range (min (* gid0 2) (+ gid0 3)) (max (* gid0 2) (+ gid0 3)))"),
            std::string::npos)
      << r;
}

TEST(RegionAnalysis, DataDependentLoopIsUnknown) {
  std::string r = regionsOf(R"(
__kernel void chase(__global const int* next, __global int* out) {
  int p = get_global_id(0), steps = 0;
  while (p >= 0) { p = next[p]; ++steps; }
  out[get_global_id(0)] = steps;
})");
  EXPECT_EQ(line(r, "arg 0 read").rfind("arg 0 read: unknown: ", 0), 0u) << r;
  EXPECT_EQ(line(r, "arg 1 write"), "arg 1 write: [(* gid0 4), (+ (* gid0 4) 3)]");
}

TEST(RegionAnalysis, PointerEscapeIsUnknown) {
  std::string r = regionsOf(R"(
void helper(__global float* p, __global float** slot);
__kernel void esc(__global float* a, __global float* b) {
  a[get_global_id(0)] = 1.0f;
  __global float* q = a;
  helper(q, 0);
})");
  EXPECT_EQ(line(r, "arg 0 write").rfind("arg 0 write: unknown: passed to call 'helper'", 0), 0u) << r;
  EXPECT_EQ(line(r, "arg 1 write"), "arg 1 write: none");
}

TEST(RegionAnalysis, HelperFunctionsAreInlined) {
  std::string r = regionsOf(R"(
int at(int x, int y, int w) { return y * w + x; }
void put(__global float* p, int i, float v) { p[i] = v; }
__kernel void k(__global float* out, int w) {
  put(out, at(get_global_id(0), get_global_id(1), w), 2.0f);
})");
  EXPECT_EQ(line(r, "arg 0 write"),
            "arg 0 write: [(* (+ (wrap_i32 gid0) (wrap_i32 (* gid1 (arg 1)))) 4), "
            "(+ (* (+ (wrap_i32 gid0) (wrap_i32 (* gid1 (arg 1)))) 4) 3)]");
}

// Evaluated: a two-sided guard narrows the ids of a 2D slice.
TEST(RegionAnalysis, TwoSidedGuardEvaluates) {
  llvm::LLVMContext ctx;
  std::string err;
  auto M = test::compileCL(R"(
__kernel void interior(__global float* a, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1) a[y * w + x] = 0.0f;
})",
                           "", ctx, &err);
  ASSERT_TRUE(M) << err;
  ProgramSummary s;
  KernelSummary k;
  k.name = "interior";
  for (unsigned i = 0; i < 3; ++i) {
    ArgSummary a;
    a.index = i;
    k.args.push_back(a);
  }
  s.kernels.push_back(k);
  annotateRegions(*M, s);
  const AccessRegion& w = s.kernels[0].args[0].write_region;
  ASSERT_TRUE(w.known) << w.unknown_reason;
  EXPECT_TRUE(s.kernels[0].args[0].writes);
  EXPECT_FALSE(s.kernels[0].args[0].reads);
  NDRange nd;
  nd.dims = 2;
  nd.global[0] = 16, nd.global[1] = 16;
  nd.local[0] = 4, nd.local[1] = 4;
  // Rows 0..3 of a 16x16 grid: only rows 1..3, columns 1..14 are written.
  auto r = evaluate_region(w, slice_env(nd, Slice{1, 0, 1}, {std::nullopt, 16, 16}), 16 * 16 * 4);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].begin, (16u * 1 + 1) * 4);
  EXPECT_EQ((*r)[0].end, (16u * 3 + 14) * 4 + 4);
}

namespace {

// Annotates the only kernel of `source` and returns its summary.
KernelSummary annotated(const std::string& source, unsigned nargs) {
  llvm::LLVMContext ctx;
  std::string err;
  auto M = test::compileCL(source, "", ctx, &err);
  EXPECT_TRUE(M) << err;
  ProgramSummary s = M ? regionSummary(*M) : ProgramSummary{};
  EXPECT_EQ(s.kernels.size(), 1u);
  if (s.kernels.empty()) return {};
  EXPECT_EQ(s.kernels[0].args.size(), nargs);
  return s.kernels[0];
}

NDRange range1(uint64_t global, uint64_t local) {
  NDRange nd;
  nd.dims = 1;
  nd.global[0] = global;
  nd.local[0] = local;
  return nd;
}

}  // namespace

// A grid-stride loop: SCEV has no trip count (the step is get_global_size);
// the latch bound gives one. Compared with the elements really visited.
TEST(RegionAnalysis, GridStrideLoopBoundedByLatch) {
  KernelSummary k = annotated(R"(
__kernel void scale(__global float* out, uint n) {
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) out[i] *= 2.0f;
})",
                              2);
  const AccessRegion& w = k.args[0].write_region;
  ASSERT_TRUE(w.known) << w.unknown_reason;
  NDRange nd = range1(64, 8);
  for (uint64_t n : {0u, 10u, 64u, 200u, 1000u})
    for (uint64_t first = 0; first < 8; first += 3) {
      Slice s{0, first, 2};
      auto r = evaluate_region(w, slice_env(nd, s, {std::nullopt, int64_t(n)}), 1 << 20);
      ASSERT_TRUE(r) << "n=" << n;
      // Every visited element is predicted...
      uint64_t lo = ~uint64_t(0), hi = 0;
      for (uint64_t gid = first * 8; gid < (first + 2) * 8; ++gid)
        for (uint64_t i = gid; i < n; i += 64) {
          bool in = false;
          for (auto& b : *r) in |= b.begin <= i * 4 && i * 4 + 4 <= b.end;
          EXPECT_TRUE(in) << "n=" << n << " element " << i;
          lo = std::min(lo, i * 4), hi = std::max(hi, i * 4 + 4);
        }
      // ...and the prediction stays within the slice's first element and n.
      if (lo <= hi && !r->empty()) {
        EXPECT_GE(r->front().begin, first * 8 * 4);
        EXPECT_LE(r->back().end, std::max<uint64_t>(n * 4, (first + 2) * 8 * 4));
      }
    }
}

// A decreasing loop with a symbolic step: the step's sign is checked at run
// time; a step of the wrong sign makes the region unevaluable (whole buffer).
TEST(RegionAnalysis, DecreasingSymbolicStep) {
  KernelSummary k = annotated(R"(
__kernel void back(__global int* out, int n, int step) {
  int row = get_global_id(0);
  for (int j = n - 1; j >= 0; j -= step) out[row * n + j] = j;
})",
                              3);
  const AccessRegion& w = k.args[0].write_region;
  ASSERT_TRUE(w.known) << w.unknown_reason;
  NDRange nd = range1(16, 4);
  auto r = evaluate_region(w, slice_env(nd, Slice{0, 1, 1}, {std::nullopt, 10, 3}), 1 << 20);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 1u);
  // Rows 4..7, columns 0..9 (visited: 9, 6, 3, 0).
  EXPECT_LE((*r)[0].begin, 4u * 10 * 4);
  EXPECT_GE((*r)[0].end, (7u * 10 + 9) * 4 + 4);
  EXPECT_LE((*r)[0].end, 8u * 10 * 4 + 12);
  EXPECT_FALSE(evaluate_region(w, slice_env(nd, Slice{0, 1, 1}, {std::nullopt, 10, -3}), 1 << 20));
}

// Unsigned guard: uint i < n with n as given by the runtime.
TEST(RegionAnalysis, UnsignedGuardNarrows) {
  KernelSummary k = annotated(R"(
__kernel void tail(__global float* a, uint n) {
  uint i = get_global_id(0);
  if (i < n) a[i] = 0.0f;
})",
                              2);
  const AccessRegion& w = k.args[0].write_region;
  ASSERT_TRUE(w.known) << w.unknown_reason;
  NDRange nd = range1(64, 16);
  auto r = evaluate_region(w, slice_env(nd, Slice{0, 2, 2}, {std::nullopt, 40}), 1 << 20);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].begin, 32u * 4);
  EXPECT_EQ((*r)[0].end, 40u * 4);
  auto none = evaluate_region(w, slice_env(nd, Slice{0, 3, 1}, {std::nullopt, 40}), 1 << 20);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

// Neighbouring constant offsets share one part; many parts are folded.
TEST(RegionAnalysis, PartsAreCompacted) {
  std::string r = regionsOf(R"(
__kernel void sum3(__global const float* in, __global float* out) {
  size_t i = get_global_id(0);
  out[i] = in[i] + in[i + 1] + in[i + 2];
})");
  EXPECT_EQ(line(r, "arg 0 read"), "arg 0 read: [(* gid0 4), (+ (* gid0 4) 11)]");

  std::string src = "__kernel void many(__global const int* in, __global int* out) {\n"
                    "  size_t i = get_global_id(0);\n  int s = 0;\n";
  for (int k = 2; k <= 17; ++k) src += "  s += in[i * " + std::to_string(k) + "];\n";
  src += "  out[i] = s;\n}\n";
  KernelSummary k = annotated(src, 2);
  const AccessRegion& rd = k.args[0].read_region;
  ASSERT_TRUE(rd.known) << rd.unknown_reason;
  EXPECT_LE(rd.parts.size(), 12u);
  NDRange nd = range1(64, 8);
  auto got = evaluate_region(rd, slice_env(nd, Slice{0, 2, 1}, {}), 1 << 20);
  ASSERT_TRUE(got);
  for (uint64_t gid = 16; gid < 24; ++gid)
    for (uint64_t m = 2; m <= 17; ++m) {
      bool in = false;
      for (auto& b : *got) in |= b.begin <= gid * m * 4 && gid * m * 4 + 4 <= b.end;
      EXPECT_TRUE(in) << "in[" << gid << " * " << m << "]";
    }
}
