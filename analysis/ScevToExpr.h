// Translation of ScalarEvolution expressions into region expressions
// (libsplit::Expr), soundly.
//
// SCEV arithmetic wraps modulo 2^W (W = the expression's bit width); region
// expressions are evaluated exactly in int64 at run time. translate() returns
// an Expr whose exact value is congruent to the SCEV's value modulo 2^W;
// wherever the interpretation matters (extensions, unsigned division,
// min/max, comparisons) the operand is reduced with wrap_iW / wrap_uW, the
// kernel's own modular arithmetic (an interval crossing a wrap point becomes
// the whole W-bit range). Where an argument needs "no wrap at all" (guards,
// loop bounds) fits_iW / fits_uW make the run-time evaluation fail instead
// (= whole buffer / no guard). Loop recurrences become (range first last)
// over the backedge-taken count, or over the latch condition's bound.
#pragma once

#include "libsplit/region.h"

#include <llvm/ADT/SmallPtrSet.h>

#include <string>
#include <vector>

namespace llvm {
class CallInst;
class Function;
class Instruction;
class LoadInst;
class LoopInfo;
class ScalarEvolution;
class SCEV;
class SCEVAddRecExpr;
class Value;
}  // namespace llvm

namespace libsplit {

// "line 12" from debug info, else the instruction as text.
std::string describeLocation(const llvm::Instruction* I);

// The NDRange variable a call computes (get_global_id(0) ...), if any.
bool ndrangeBuiltin(const llvm::Value* V, NDVar* var, unsigned* dim);

class ScevToExpr {
 public:
  // loadable: per IR argument of F, whether it is a buffer the kernel never
  // writes (no store, atomic or escape): integers loaded from it become
  // (load_xN arg offset), resolved at launch from its contents. Null: every
  // load is an unknown (indirection).
  ScevToExpr(llvm::ScalarEvolution& SE, llvm::LoopInfo& LI, const llvm::Function& F,
             const std::vector<bool>* loadable = nullptr)
      : SE(SE), LI(LI), F(F), Loadable(loadable) {}

  // nullptr when the value cannot be expressed; reason() then says why.
  libsplit::ExprPtr translate(const llvm::SCEV* S);
  // translate() of S read as a signed / unsigned W-bit integer.
  libsplit::ExprPtr translateAs(const llvm::SCEV* S, bool is_signed);
  const std::string& reason() const { return Reason; }

 private:
  libsplit::ExprPtr fail(std::string why);
  libsplit::ExprPtr translateUnknown(const llvm::Value* V, unsigned bits);
  // The integer a load reads, as a Load expression; nullptr (with the
  // indirection reason) when its buffer is not loadable.
  libsplit::ExprPtr translateLoad(const llvm::LoadInst* L, bool is_signed);
  libsplit::ExprPtr translateValue(const llvm::Value* V);
  libsplit::ExprPtr translateIntegerBuiltin(const llvm::CallInst* C);
  libsplit::ExprPtr rangeFromLatch(const llvm::SCEVAddRecExpr* AR, std::string* why);
  libsplit::ExprPtr rangeToLastValue(const llvm::SCEVAddRecExpr* AR);

  llvm::ScalarEvolution& SE;
  llvm::LoopInfo& LI;
  const llvm::Function& F;
  const std::vector<bool>* Loadable;
  std::string Reason;
  llvm::SmallPtrSet<const llvm::Value*, 8> Active;  // phis/selects being expanded
  unsigned Depth = 0;
};

// Whether e mentions a work-item id (gid/lid/grp): such expressions are not
// uniform and cannot bound a guard.
bool mentionsWorkItemId(const libsplit::Expr& e);

}  // namespace libsplit
