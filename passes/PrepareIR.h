// The light pipeline libsplit-cc runs on the program's IR before the
// analyses: every helper inlined into the kernels, then SROA/mem2reg,
// instcombine, early CSE and simplifycfg, so that the analyses see each
// kernel as one function over SSA values.
#pragma once

namespace llvm {
class Module;
}

namespace libsplit::cc {

void prepareModule(llvm::Module& m);

}  // namespace libsplit::cc
