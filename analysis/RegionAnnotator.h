// Entry point of the region analysis used by libsplit-cc: fills the
// read_region / write_region of every buffer argument of every kernel in the
// summary from the LLVM IR of the program.
#pragma once

#include "libsplit/summary.h"

namespace llvm {
class Module;
}

namespace libsplit {

// M is the program's IR (spir64, OpenCL kernels as functions with the
// SPIR_KERNEL calling convention). Regions the analysis cannot bound are left
// known=false with a reason.
void annotateRegions(llvm::Module& M, ProgramSummary& summary);

}  // namespace libsplit
