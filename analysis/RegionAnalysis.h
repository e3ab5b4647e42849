// Symbolic array-region analysis of one OpenCL kernel (new pass manager).
//
// For every global/constant pointer argument: the bytes the kernel may read
// and may write, as a union of guarded ranges over the kernel's scalar
// arguments and NDRange variables (libsplit::AccessRegion), or unknown with
// the reason and place. Always a sound over-approximation: whatever the
// analysis cannot bound precisely is unknown (= whole buffer at run time).
//
// How: every load/store/atomic/vloadN/vstoreN/memcpy/async copy reached from
// the argument through GEPs, casts, phis and selects is one part; its address is
// ScalarEvolution's SCEV minus the argument base, translated by ScevToExpr
// (NDRange builtins -> gid0/lsz1/..., integer arguments -> (arg N), loops ->
// (range ..) over the trip count or the latch bound, narrow arithmetic ->
// wrap_/fits_ so that int64 evaluation agrees with the kernel's). Guards come
// from the dominating branch edges whose condition is `id + c pred uniform`
// (also InstCombine's mask form). Any other use of the pointer (stored,
// passed to a function that is not inlined, converted to an integer) makes
// both directions unknown. Kernels are prepared first (RegionAnnotator.h:
// inlining, mem2reg, loop rotation, work-item queries hoisted out of loops).
//
// Indices and loop bounds loaded from a buffer argument the kernel never
// writes become (load_xN arg offset) terms, resolved at launch from the
// buffer's contents (ScevToExpr.h; libsplit/indirect_regions.h).
// Still unknown: indices loaded from written buffers, private or local
// memory, loop-carried values that are not affine inductions (p = next[p], i *= 2),
// pointers selected between two buffers, pointers escaping to calls.
// Soundness is checked against actual accesses by tests/analysis
// (TraceOracleTest, region_tool --trace).
#pragma once

#include "libsplit/region.h"

#include <llvm/IR/PassManager.h>

#include <vector>

namespace libsplit {

struct ArgRegions {
  bool is_buffer = false;  // a __global / __constant pointer
  bool reads = false, writes = false, atomics = false;
  AccessRegion read, write;
};

// One entry per IR argument of the function, in order.
struct KernelRegions {
  std::vector<ArgRegions> args;
};

class KernelRegionAnalysis : public llvm::AnalysisInfoMixin<KernelRegionAnalysis> {
 public:
  using Result = KernelRegions;
  Result run(llvm::Function& F, llvm::FunctionAnalysisManager& FAM);

 private:
  friend llvm::AnalysisInfoMixin<KernelRegionAnalysis>;
  static llvm::AnalysisKey Key;
};

// Prints, for every SPIR kernel, one line per buffer argument and direction:
//   "kernel NAME" / "  arg N read: <print_region>" / "  arg N write: ...".
class KernelRegionPrinterPass : public llvm::PassInfoMixin<KernelRegionPrinterPass> {
 public:
  explicit KernelRegionPrinterPass(llvm::raw_ostream& OS) : OS(OS) {}
  llvm::PreservedAnalyses run(llvm::Function& F, llvm::FunctionAnalysisManager& FAM);

 private:
  llvm::raw_ostream& OS;
};

}  // namespace libsplit
