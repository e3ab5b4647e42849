#include "ScevToExpr.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Support/raw_ostream.h>

using namespace llvm;

namespace libsplit {

std::string describeLocation(const Instruction* I) {
  if (!I) return "unknown place";
  if (const DebugLoc& DL = I->getDebugLoc(); DL && DL.getLine() != 0)
    return "line " + std::to_string(DL.getLine());
  // Phis and the like carry no line: the first located instruction of the
  // block is close enough for a person.
  for (const Instruction& J : *I->getParent())
    if (const DebugLoc& DL = J.getDebugLoc(); DL && DL.getLine() != 0)
      return "line " + std::to_string(DL.getLine());
  std::string text;
  raw_string_ostream OS(text);
  I->print(OS);
  OS.flush();
  size_t start = text.find_first_not_of(' ');
  text = start == std::string::npos ? text : text.substr(start);
  if (size_t meta = text.find(", !"); meta != std::string::npos) text.resize(meta);
  if (text.size() > 90) text = text.substr(0, 87) + "...";
  return "instruction '" + text + "'";
}

bool ndrangeBuiltin(const Value* V, NDVar* var, unsigned* dim) {
  const auto* Call = dyn_cast<CallInst>(V);
  if (!Call || !Call->getCalledFunction() || Call->arg_size() != 1) return false;
  static const struct {
    const char* mangled;
    NDVar var;
  } kBuiltins[] = {
      {"_Z13get_global_idj", NDVar::GlobalId},     {"_Z12get_local_idj", NDVar::LocalId},
      {"_Z12get_group_idj", NDVar::GroupId},       {"_Z15get_global_sizej", NDVar::GlobalSize},
      {"_Z14get_local_sizej", NDVar::LocalSize},   {"_Z14get_num_groupsj", NDVar::NumGroups},
      {"_Z17get_global_offsetj", NDVar::GlobalOffset},
  };
  StringRef Name = Call->getCalledFunction()->getName();
  for (const auto& B : kBuiltins) {
    if (Name != B.mangled) continue;
    const auto* D = dyn_cast<ConstantInt>(Call->getArgOperand(0));
    if (!D || D->getZExtValue() > 2) return false;
    *var = B.var;
    *dim = unsigned(D->getZExtValue());
    return true;
  }
  return false;
}

bool mentionsWorkItemId(const Expr& e) {
  if (e.kind == Expr::Kind::Var)
    return e.var == NDVar::GlobalId || e.var == NDVar::LocalId || e.var == NDVar::GroupId;
  return (e.lhs && mentionsWorkItemId(*e.lhs)) || (e.rhs && mentionsWorkItemId(*e.rhs));
}

ExprPtr ScevToExpr::fail(std::string why) {
  if (Reason.empty()) Reason = std::move(why);
  return nullptr;
}

ExprPtr ScevToExpr::translateAs(const SCEV* S, bool is_signed) {
  ExprPtr e = translate(S);
  if (!e) return nullptr;
  unsigned bits = SE.getTypeSizeInBits(S->getType());
  if (bits > 64) return fail("integer wider than 64 bits");
  // The kernel's own wrapping, exactly (kernel arguments too: the runtime
  // may extend a narrow argument either way; wrapping makes both right).
  return make_wrap(std::move(e), bits, is_signed);
}

ExprPtr ScevToExpr::translate(const SCEV* S) {
  if (++Depth > 64) {
    --Depth;
    return fail("expression too deep");
  }
  struct Leave {
    unsigned& d;
    ~Leave() { --d; }
  } leave{Depth};

  if (isa<SCEVCouldNotCompute>(S)) return fail("address not computable");
  if (SE.getTypeSizeInBits(S->getType()) > 64) return fail("integer wider than 64 bits");
  switch (S->getSCEVType()) {
    case scConstant: {
      const APInt& V = cast<SCEVConstant>(S)->getAPInt();
      return Expr::constant(V.getSExtValue());
    }
    case scTruncate:
      // Congruent modulo the narrower width: the consumer checks the range.
      return translate(cast<SCEVTruncateExpr>(S)->getOperand());
    case scZeroExtend:
    case scSignExtend: {
      // The operand read as a W-bit signed/unsigned value (wrap_iW / wrap_uW).
      const SCEV* Op = cast<SCEVIntegralCastExpr>(S)->getOperand();
      bool isSigned = S->getSCEVType() == scSignExtend;
      // An extended loaded integer: the load itself, read with that sign.
      if (const auto* U = dyn_cast<SCEVUnknown>(Op))
        if (const auto* L = dyn_cast<LoadInst>(U->getValue())) {
          std::string kept = Reason;
          if (ExprPtr e = translateLoad(L, isSigned)) return e;
          Reason = kept;  // not loadable: the narrow-type range below still holds
        }
      std::string before = Reason;
      if (ExprPtr e = translateAs(Op, isSigned)) return e;
      // Unknown but narrow (data % 16, a uchar loaded from memory): any value
      // of the W-bit type, a short range worth more than "unknown".
      unsigned W = SE.getTypeSizeInBits(Op->getType());
      if (W > 16) return nullptr;
      Reason = before;
      int64_t lo = isSigned ? -(int64_t(1) << (W - 1)) : 0, hi = isSigned ? (int64_t(1) << (W - 1)) - 1 : (int64_t(1) << W) - 1;
      return make_range(Expr::constant(lo), Expr::constant(hi));
    }
    case scAddExpr:
    case scMulExpr: {
      const auto* N = cast<SCEVNAryExpr>(S);
      ExprPtr acc;
      for (const SCEV* Op : N->operands()) {
        ExprPtr e = translate(Op);
        if (!e) return nullptr;
        acc = !acc ? e : (S->getSCEVType() == scAddExpr ? make_add(acc, e) : make_mul(acc, e));
      }
      return acc;
    }
    case scUDivExpr: {
      const auto* D = cast<SCEVUDivExpr>(S);
      ExprPtr a = translateAs(D->getLHS(), false), b = translateAs(D->getRHS(), false);
      if (!a || !b) return nullptr;
      return make_div(a, b);
    }
    case scSMaxExpr:
    case scSMinExpr:
    case scUMaxExpr:
    case scUMinExpr:
    case scSequentialUMinExpr: {
      bool isSigned = S->getSCEVType() == scSMaxExpr || S->getSCEVType() == scSMinExpr;
      bool isMax = S->getSCEVType() == scSMaxExpr || S->getSCEVType() == scUMaxExpr;
      ExprPtr acc;
      for (const SCEV* Op : cast<SCEVNAryExpr>(S)->operands()) {
        ExprPtr e = translateAs(Op, isSigned);
        if (!e) return nullptr;
        acc = !acc ? e : (isMax ? make_max(acc, e) : make_min(acc, e));
      }
      return acc;
    }
    case scAddRecExpr: {
      const auto* AR = cast<SCEVAddRecExpr>(S);
      const Loop* L = AR->getLoop();
      std::string where = L->getHeader()->empty() ? "loop" : "loop at " + describeLocation(&L->getHeader()->front());
      if (!AR->isAffine()) return fail("non-affine induction in " + where);
      const SCEV* BTC = SE.getBackedgeTakenCount(L);
      if (isa<SCEVCouldNotCompute>(BTC)) BTC = SE.getSymbolicMaxBackedgeTakenCount(L);
      if (isa<SCEVCouldNotCompute>(BTC)) {
        std::string why;
        if (ExprPtr r = rangeFromLatch(AR, &why)) return r;
        return fail("trip count of " + where + " unknown" + (why.empty() ? "" : " (" + why + ")"));
      }
      ExprPtr start = translate(AR->getStart());
      if (!start) return nullptr;
      ExprPtr step = translate(AR->getStepRecurrence(SE));
      if (!step) return nullptr;
      ExprPtr n = translateAs(BTC, /*is_signed=*/false);
      if (!n) return nullptr;
      // Bounds loaded from memory (CSR: k from row[i] to row[i+1]): start and
      // trip count share a loaded value that interval evaluation cannot
      // cancel (the count's hull would go negative). The last value as
      // ScalarEvolution simplifies it cancels the start away.
      if (mentions_load(*start) || mentions_load(*n))
        if (ExprPtr r = rangeToLastValue(AR)) return r;
      // Iteration k in [0, n] has value start + k*step (modulo 2^W, which the
      // consumer's range check covers since the values are monotone in k).
      ExprPtr last = make_add(start, make_mul(step, n));
      if (step->kind == Expr::Kind::Const)
        return step->value >= 0 ? make_range(start, last) : make_range(last, start);
      return make_range(make_min(start, last), make_max(start, last));
    }
    case scPtrToInt: return fail("pointer converted to integer");
    case scUnknown:
      return translateUnknown(cast<SCEVUnknown>(S)->getValue(), SE.getTypeSizeInBits(S->getType()));
    default: return fail("unsupported expression");
  }
}

// A recurrence whose trip count SCEV cannot compute (grid-stride loops,
// symbolic steps): bound it by the latch condition. If the backedge is taken
// only while X pred B (X = x0 + k*c, B loop-invariant), every X_k lies in
// [x0, max(x0, B-1+c)] for `<` (symmetrically for `>`), provided c has the
// right sign and X never wraps: both checked at run time by fits terms.
ExprPtr ScevToExpr::rangeFromLatch(const SCEVAddRecExpr* AR, std::string* why) {
  const Loop* L = AR->getLoop();
  BasicBlock* Latch = L->getLoopLatch();
  auto* Br = Latch ? dyn_cast<BranchInst>(Latch->getTerminator()) : nullptr;
  auto* Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
  if (!Cmp || !SE.isSCEVable(Cmp->getOperand(0)->getType())) {
    *why = "no latch comparison";
    return nullptr;
  }
  bool continueOnTrue = Br->getSuccessor(0) == L->getHeader();
  if (!continueOnTrue && Br->getSuccessor(1) != L->getHeader()) {
    *why = "latch does not branch to the header";
    return nullptr;
  }
  CmpInst::Predicate Pred = continueOnTrue ? Cmp->getPredicate() : Cmp->getInversePredicate();
  const SCEV* X = SE.getSCEV(Cmp->getOperand(0));
  const SCEV* B = SE.getSCEV(Cmp->getOperand(1));
  auto isOurs = [&](const SCEV* V) {
    const auto* A = dyn_cast<SCEVAddRecExpr>(V);
    return A && A->getLoop() == L && A->isAffine();
  };
  if (!isOurs(X)) {
    std::swap(X, B);
    Pred = CmpInst::getSwappedPredicate(Pred);
  }
  if (!isOurs(X) || !SE.isLoopInvariant(B, L)) {
    *why = "latch does not compare this induction with an invariant";
    return nullptr;
  }
  bool increasing;
  int64_t bOff;  // X_k <= B + bOff + c (increasing) / X_k >= B + bOff + c
  switch (Pred) {
    case CmpInst::ICMP_SLT: case CmpInst::ICMP_ULT: increasing = true, bOff = -1; break;
    case CmpInst::ICMP_SLE: case CmpInst::ICMP_ULE: increasing = true, bOff = 0; break;
    case CmpInst::ICMP_SGT: case CmpInst::ICMP_UGT: increasing = false, bOff = 1; break;
    case CmpInst::ICMP_SGE: case CmpInst::ICMP_UGE: increasing = false, bOff = 0; break;
    default: *why = "latch predicate is not an ordering"; return nullptr;
  }
  bool isSigned = CmpInst::isSigned(Pred);
  unsigned W = SE.getTypeSizeInBits(X->getType());
  const auto* XA = cast<SCEVAddRecExpr>(X);
  ExprPtr x0 = translateAs(XA->getStart(), isSigned);
  ExprPtr c = translateAs(XA->getStepRecurrence(SE), /*is_signed=*/true);
  ExprPtr b = translateAs(B, isSigned);
  ExprPtr arStart = translate(AR->getStart());
  ExprPtr arStep = translate(AR->getStepRecurrence(SE));
  if (!x0 || !c || !b || !arStart || !arStep) return nullptr;
  // The step's sign: known, or checked (c-1 >= 0 / -1-c >= 0).
  ExprPtr stepCheck;
  if (c->kind == Expr::Kind::Const) {
    if (increasing ? c->value < 1 : c->value > -1) {
      *why = "step goes away from the bound";
      return nullptr;
    }
  } else {
    stepCheck = make_fits(increasing ? make_sub(c, Expr::constant(1)) : make_sub(Expr::constant(-1), c), 64, false);
  }
  ExprPtr far = make_add(make_add(b, Expr::constant(bOff)), c);
  // Every computed X stays within `far`: it must fit the compared type.
  ExprPtr zeroTimes = Expr::binary(Expr::Kind::Mul, Expr::constant(0), make_fits(far, W, isSigned));
  if (stepCheck) zeroTimes = make_add(zeroTimes, Expr::binary(Expr::Kind::Mul, Expr::constant(0), stepCheck));
  ExprPtr lastX = increasing ? make_add(make_max(x0, far), zeroTimes) : make_add(make_min(x0, far), zeroTimes);
  // When AR = a*X + D (a constant, D invariant) the bound carries over
  // directly, without the widening of going through k.
  if (XA->getType() == AR->getType()) {
    const SCEV* SX = XA->getStepRecurrence(SE);
    const SCEV* SA = AR->getStepRecurrence(SE);
    std::optional<int64_t> a;
    const auto* CX = dyn_cast<SCEVConstant>(SX);
    const auto* CA = dyn_cast<SCEVConstant>(SA);
    if (SA == SX) {
      a = 1;
    } else if (CX && CA && !CX->getAPInt().isZero() && CX->getAPInt().getSignificantBits() <= 64 &&
               CA->getAPInt().getSignificantBits() <= 64) {
      int64_t cx = CX->getAPInt().getSExtValue(), ca = CA->getAPInt().getSExtValue();
      if (ca % cx == 0) a = ca / cx;
    } else if (const auto* M = dyn_cast<SCEVMulExpr>(SA);
               M && isa<SCEVConstant>(M->getOperand(0)) && SE.getMulExpr(M->getOperand(0), SX) == SA &&
               cast<SCEVConstant>(M->getOperand(0))->getAPInt().getSignificantBits() <= 64) {
      a = cast<SCEVConstant>(M->getOperand(0))->getAPInt().getSExtValue();
    }
    if (a) {
      const SCEV* D = SE.getMinusSCEV(AR, SE.getMulExpr(SE.getConstant(AR->getType(), uint64_t(*a), true), XA));
      if (!isa<SCEVCouldNotCompute>(D) && SE.isLoopInvariant(D, L))
        if (ExprPtr d = translate(D)) {
          ExprPtr xs = increasing ? make_range(x0, lastX) : make_range(lastX, x0);
          return make_add(make_mul(xs, Expr::constant(*a)), d);
        }
    }
  }
  // Iterations k in [0, K], K = (last X - x0) / c; AR and X share k.
  ExprPtr span = increasing ? make_sub(make_max(x0, far), x0) : make_sub(x0, make_min(x0, far));
  ExprPtr K = make_add(make_div(span, increasing ? c : make_sub(Expr::constant(0), c)), zeroTimes);
  return make_add(arStart, make_mul(arStep, make_range(Expr::constant(0), K)));
}

// AR = a * ext(X) + D, X an induction of the same loop that never wraps
// (nsw / nuw: a wrapped value would be poison), D loop-invariant: with an
// exact trip count (not an upper bound) X takes the W-bit integers from its
// start to its last value, in order, and ScalarEvolution's last value of X
// (start + step * count, simplified in X's own type) cancels the start that
// interval evaluation could not. Both ends are translated as W-bit values
// (wrap_ terms reduce them exactly).
ExprPtr ScevToExpr::rangeToLastValue(const SCEVAddRecExpr* AR) {
  const Loop* L = AR->getLoop();
  const SCEV* BTC = SE.getBackedgeTakenCount(L);
  if (isa<SCEVCouldNotCompute>(BTC) || !L->getHeader()) return nullptr;
  const auto* CA = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
  Type* ARTy = AR->getType();
  for (PHINode& Phi : L->getHeader()->phis()) {
    if (!SE.isSCEVable(Phi.getType()) || !Phi.getType()->isIntegerTy()) continue;
    const auto* X = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&Phi));
    if (!X || X->getLoop() != L || !X->isAffine()) continue;
    const bool nsw = X->hasNoSignedWrap(), nuw = X->hasNoUnsignedWrap();
    if (!nsw && !nuw) continue;
    if (SE.getTypeSizeInBits(X->getType()) > SE.getTypeSizeInBits(ARTy)) continue;
    const auto* CX = dyn_cast<SCEVConstant>(X->getStepRecurrence(SE));
    if (!CA || !CX || CX->getAPInt().isZero() || CX->getAPInt().getSignificantBits() > 64 ||
        CA->getAPInt().getSignificantBits() > 64)
      continue;
    int64_t cx = CX->getAPInt().getSExtValue(), ca = CA->getAPInt().getSExtValue();
    if (ca % cx) continue;
    const int64_t a = ca / cx;
    const SCEV* Ext = nsw ? SE.getSignExtendExpr(X, ARTy) : SE.getZeroExtendExpr(X, ARTy);
    const SCEV* D = SE.getMinusSCEV(AR, SE.getMulExpr(SE.getConstant(ARTy, uint64_t(a), true), Ext));
    if (isa<SCEVCouldNotCompute>(D) || !SE.isLoopInvariant(D, L)) continue;
    const SCEV* Count = SE.getTruncateOrZeroExtend(BTC, X->getType());
    if (SE.getTypeSizeInBits(BTC->getType()) > SE.getTypeSizeInBits(X->getType())) continue;
    const SCEV* Last = X->evaluateAtIteration(Count, SE);
    std::string before = Reason;
    ExprPtr first = translateAs(X->getStart(), nsw), last = translateAs(Last, nsw), d = translate(D);
    if (!first || !last || !d) {
      Reason = before;
      continue;
    }
    ExprPtr xs = cx > 0 ? make_range(first, last) : make_range(last, first);
    return make_add(make_mul(xs, Expr::constant(a)), d);
  }
  return nullptr;
}

ExprPtr ScevToExpr::translateValue(const Value* V) {
  if (!SE.isSCEVable(V->getType())) return fail("non-integer value");
  return translate(SE.getSCEV(const_cast<Value*>(V)));
}

// OpenCL integer builtins that are plain arithmetic: min, max, clamp, mul24,
// mad24 (any integer type; the mangled parameter letter gives signedness).
ExprPtr ScevToExpr::translateIntegerBuiltin(const CallInst* C) {
  StringRef N = C->getCalledFunction()->getName();
  if (!N.consume_front("_Z")) return nullptr;
  unsigned Len = 0;
  if (N.consumeInteger(10, Len) || Len > N.size()) return nullptr;
  StringRef Base = N.substr(0, Len), Params = N.substr(Len);
  if (Params.empty() || !C->getType()->isIntegerTy()) return nullptr;
  bool isSigned;
  switch (Params[0]) {
    case 'c': case 'a': case 's': case 'i': case 'l': isSigned = true; break;
    case 'h': case 't': case 'j': case 'm': isSigned = false; break;
    default: return nullptr;
  }
  unsigned nargs = C->arg_size();
  auto op = [&](unsigned i) -> ExprPtr {
    if (!SE.isSCEVable(C->getArgOperand(i)->getType())) return fail("non-integer builtin operand");
    return translateAs(SE.getSCEV(const_cast<Value*>(C->getArgOperand(i))), isSigned);
  };
  auto op24 = [&](unsigned i) -> ExprPtr {
    ExprPtr e = op(i);
    return e ? make_fits(e, 24, isSigned) : nullptr;
  };
  if ((Base == "min" || Base == "max") && nargs == 2) {
    ExprPtr a = op(0), b = op(1);
    if (!a || !b) return nullptr;
    return Base == "min" ? make_min(a, b) : make_max(a, b);
  }
  if (Base == "clamp" && nargs == 3) {
    ExprPtr x = op(0), lo = op(1), hi = op(2);
    if (!x || !lo || !hi) return nullptr;
    return make_min(make_max(x, lo), hi);
  }
  if (Base == "mul24" && nargs == 2) {
    ExprPtr a = op24(0), b = op24(1);
    if (!a || !b) return nullptr;
    return make_mul(a, b);
  }
  if (Base == "mad24" && nargs == 3) {
    ExprPtr a = op24(0), b = op24(1), c = op(2);
    if (!a || !b || !c) return nullptr;
    return make_add(make_mul(a, b), c);
  }
  return nullptr;
}

ExprPtr ScevToExpr::translateLoad(const LoadInst* L, bool is_signed) {
  // Name the buffer the index comes from: the region depends on its contents.
  const Value* Base = getUnderlyingObject(L->getPointerOperand());
  const auto* A = dyn_cast<Argument>(Base);
  std::string where = describeLocation(L);
  std::string from = "memory";
  if (A)
    from = "the contents of arg " + std::to_string(A->getArgNo()) +
           (A->hasName() ? " (" + A->getName().str() + ")" : std::string());
  else if (isa<AllocaInst>(Base))
    from = "a private variable";
  else if (isa<GlobalVariable>(Base))
    from = "the program-scope variable '" + Base->getName().str() + "'";
  std::string why = "index loaded from " + from + " (indirection) at " + where;
  // Resolved at launch only from a buffer the kernel never writes (its
  // contents before the launch are what every work-item reads), by a plain
  // load of a whole integer.
  unsigned W = L->getType()->isIntegerTy() ? L->getType()->getIntegerBitWidth() : 0;
  if (!A || A->getParent() != &F || !Loadable || A->getArgNo() >= Loadable->size() || !(*Loadable)[A->getArgNo()] ||
      !L->isSimple() || (W != 8 && W != 16 && W != 32 && W != 64) || !SE.isSCEVable(L->getPointerOperandType()))
    return fail(why);
  const SCEV* PS = SE.getSCEV(const_cast<Value*>(L->getPointerOperand()));
  const SCEV* Arg = SE.getSCEV(const_cast<Argument*>(A));
  if (isa<SCEVCouldNotCompute>(PS) || SE.getPointerBase(PS) != Arg) return fail(why);
  ExprPtr off = translate(SE.removePointerBase(PS));
  if (!off) return nullptr;
  return make_load(A->getArgNo(), W, is_signed, std::move(off));
}

ExprPtr ScevToExpr::translateUnknown(const Value* V, unsigned bits) {
  if (const auto* A = dyn_cast<Argument>(V)) {
    if (A->getParent() == &F && A->getType()->isIntegerTy()) return Expr::arg(A->getArgNo());
    return fail("argument of unexpected type");
  }
  NDVar var;
  unsigned dim;
  if (ndrangeBuiltin(V, &var, &dim)) return Expr::ndvar(var, dim);
  if (const auto* C = dyn_cast<CallInst>(V); C && C->getCalledFunction()) {
    StringRef N = C->getCalledFunction()->getName();
    auto v = [](NDVar x, unsigned d) { return Expr::ndvar(x, d); };
    if (N == "_Z20get_global_linear_idv") {
      // ((gid2-goff2)*gsz1 + (gid1-goff1))*gsz0 + (gid0-goff0); unused dims are 0/1.
      auto rel = [&](unsigned d) { return make_sub(v(NDVar::GlobalId, d), v(NDVar::GlobalOffset, d)); };
      return make_add(make_mul(make_add(make_mul(rel(2), v(NDVar::GlobalSize, 1)), rel(1)), v(NDVar::GlobalSize, 0)),
                      rel(0));
    }
    if (N == "_Z19get_local_linear_idv")
      return make_add(make_mul(make_add(make_mul(v(NDVar::LocalId, 2), v(NDVar::LocalSize, 1)), v(NDVar::LocalId, 1)),
                               v(NDVar::LocalSize, 0)),
                      v(NDVar::LocalId, 0));
  }
  const auto* I = dyn_cast<Instruction>(V);
  if (!I) return fail("unsupported constant expression");
  std::string where = describeLocation(I);
  if (const auto* L = dyn_cast<LoadInst>(I)) return translateLoad(L, /*is_signed=*/true);
  if (const auto* C = dyn_cast<CallInst>(I); C && C->getCalledFunction())
    if (ExprPtr e = translateIntegerBuiltin(C)) return e;
  if (!Reason.empty()) return nullptr;
  if (const auto* C = dyn_cast<CallInst>(I))
    return fail("result of call to '" +
                (C->getCalledFunction() ? C->getCalledFunction()->getName().str() : std::string("?")) +
                "' at " + where);
  // Both sides of a select / a merge of non-loop paths: the hull covers the
  // value actually taken (each side congruent modulo 2^W; consumers check).
  auto hullOf = [&](ArrayRef<const Value*> Options) -> ExprPtr {
    if (Active.contains(I) || Options.size() > 8) return fail("value merged from too many paths at " + where);
    Active.insert(I);
    ExprPtr lo, hi;
    for (const Value* O : Options) {
      ExprPtr e = translateValue(O);
      if (!e) {
        Active.erase(I);
        return nullptr;
      }
      lo = lo ? make_min(lo, e) : e;
      hi = hi ? make_max(hi, e) : e;
    }
    Active.erase(I);
    return make_range(lo, hi);
  };
  if (const auto* Sel = dyn_cast<SelectInst>(I)) return hullOf({Sel->getTrueValue(), Sel->getFalseValue()});
  if (const auto* Phi = dyn_cast<PHINode>(I)) {
    if (LI.isLoopHeader(Phi->getParent())) return fail("loop-carried value that is not an induction at " + where);
    SmallVector<const Value*, 4> In(Phi->incoming_values().begin(), Phi->incoming_values().end());
    return hullOf(In);
  }
  // Masks and remainders by constants bound the value whatever the operand.
  if (const auto* B = dyn_cast<BinaryOperator>(I)) {
    const auto* C = dyn_cast<ConstantInt>(B->getOperand(1));
    if (C && bits <= 64) {
      int64_t c = C->getSExtValue();
      if (B->getOpcode() == Instruction::And && c >= 0) return make_range(Expr::constant(0), Expr::constant(c));
      if (B->getOpcode() == Instruction::URem && c > 0) return make_range(Expr::constant(0), Expr::constant(c - 1));
      if (B->getOpcode() == Instruction::SDiv && c != 0 && c != -1) {
        // C's truncating division, which the evaluator's / also is.
        ExprPtr x = translateAs(SE.getSCEV(const_cast<Value*>(B->getOperand(0))), /*is_signed=*/true);
        return x ? make_div(x, Expr::constant(c)) : nullptr;
      }
      if (B->getOpcode() == Instruction::SRem && c != 0 && c != std::numeric_limits<int64_t>::min()) {
        int64_t m = (c < 0 ? -c : c) - 1;
        return make_range(Expr::constant(-m), Expr::constant(m));
      }
    }
    return fail("unsupported '" + std::string(B->getOpcodeName()) + "' in index at " + where);
  }
  return fail("unsupported '" + std::string(I->getOpcodeName()) + "' in index at " + where);
}

}  // namespace libsplit
