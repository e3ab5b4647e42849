// Symbolic array-region analysis of one OpenCL kernel (new pass manager).
//
// For every global/constant pointer argument: the bytes the kernel may read
// and may write, as a union of guarded ranges over the kernel's scalar
// arguments and NDRange variables (libsplit::AccessRegion), or unknown with
// the reason and place. Always a sound over-approximation: whatever the
// analysis cannot bound precisely is unknown (= whole buffer at run time).
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
