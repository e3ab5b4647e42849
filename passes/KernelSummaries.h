// The kernel summary (summary.h) of a program, from its two sources of
// truth: the AST (names, types, qualifiers, attributes) and the prepared
// LLVM IR (what each kernel actually does with its arguments).
#pragma once

#include "libsplit/summary.h"

namespace clang {
class ASTContext;
}
namespace llvm {
class Module;
}

namespace libsplit::cc {

// Every kernel defined in the main file, with the AST facts filled in and the
// hidden ctx argument listed. IR facts are left at their defaults.
std::vector<KernelSummary> summarizeKernelsFromAST(clang::ASTContext& ctx);

// Fills reads/writes/atomics per pointer argument, barrier / local memory /
// image / global-atomic use, and splittable, from the prepared module.
void addIRFacts(llvm::Module& m, ProgramSummary& summary);

}  // namespace libsplit::cc
