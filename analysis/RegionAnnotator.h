// Entry point of the region analysis used by libsplit-cc: fills the
// read_region / write_region of every buffer argument of every kernel in the
// summary from the LLVM IR of the program.
#pragma once

#include "libsplit/summary.h"

#include <string>

namespace llvm {
class Module;
}

namespace libsplit {

// M is the program's IR (spir64, OpenCL kernels as functions with the
// SPIR_KERNEL calling convention). Regions the analysis cannot bound are left
// known=false with a reason. Also ORs the reads/writes/atomics flags of the
// buffer arguments. Runs preparation passes on M first (prepareForRegions).
void annotateRegions(llvm::Module& M, ProgramSummary& summary);

// The preparation annotateRegions runs: drops optnone, inlines every helper
// into the kernels, then sroa/mem2reg/instcombine/simplifycfg/loop-simplify/
// lcssa. Idempotent.
void prepareForRegions(llvm::Module& M);

// A summary built from the IR alone (kernel names; every argument with its
// pointer-ness and address space from its IR type), then annotated. For
// tools and tests that do not run the Clang front end.
ProgramSummary regionSummary(llvm::Module& M);

// Prepares M and prints the regions of every kernel (KernelRegionPrinterPass
// format): what `libsplit-cc --regions` and the unit tests show.
std::string printRegions(llvm::Module& M);

}  // namespace libsplit
