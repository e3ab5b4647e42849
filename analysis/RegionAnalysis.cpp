#include "RegionAnalysis.h"

#include "ScevToExpr.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <map>
#include <optional>

using namespace llvm;

namespace libsplit {

AnalysisKey KernelRegionAnalysis::Key;

namespace {

constexpr unsigned kGlobalAS = 1, kConstantAS = 2;

// One memory access through a buffer argument.
struct Access {
  Instruction* I = nullptr;
  Value* Ptr = nullptr;           // the address
  const SCEV* ExtraOffset = nullptr;  // bytes added to Ptr (vloadN offset), may be null
  uint64_t Size = 0;
  bool Read = false, Write = false, Atomic = false;
  const SCEV* SymSize = nullptr;  // bytes, when not a constant (async copies); Size unused
};

// Bytes of the element type of the first pointer parameter of a mangled
// OpenCL builtin ("..PU3AS3Dv4_f.." -> 16); 0 when not recognised.
uint64_t firstPointeeSize(StringRef Mangled) {
  size_t at = Mangled.find("PU3AS");
  if (at == StringRef::npos) return 0;
  StringRef T = Mangled.substr(at + 6);  // past "PU3AS<digit>"
  while (!T.empty() && (T[0] == 'K' || T[0] == 'V' || T[0] == 'r')) T = T.drop_front();
  auto scalar = [](char c) -> uint64_t {
    switch (c) {
      case 'c': case 'a': case 'h': return 1;
      case 's': case 't': return 2;
      case 'i': case 'j': case 'f': return 4;
      case 'l': case 'm': case 'd': return 8;
      default: return 0;
    }
  };
  if (T.consume_front("Dh")) return 2;
  if (T.consume_front("Dv")) {
    unsigned n = 0;
    if (T.consumeInteger(10, n) || !T.consume_front("_") || T.empty()) return 0;
    uint64_t e = T.startswith("Dh") ? 2 : scalar(T[0]);
    return e * (n == 3 ? 4 : n);
  }
  return T.empty() ? 0 : scalar(T[0]);
}

// Base name of an Itanium-mangled OpenCL builtin: "_Z6vload4mPU3AS1Kf" -> "vload4".
StringRef builtinName(const Function* Fn) {
  if (!Fn) return {};
  StringRef N = Fn->getName();
  if (!N.consume_front("_Z")) return N;
  unsigned Len = 0;
  if (N.consumeInteger(10, Len) || Len > N.size()) return {};
  return N.substr(0, Len);
}

// vloadN / vstoreN / vload_half[N] / vstore_half[N][_rtX]: element count and
// whether it is the half variant. False for anything else.
bool vectorLoadStore(StringRef Name, bool* isStore, unsigned* count, bool* half) {
  if (Name.consume_front("vload")) *isStore = false;
  else if (Name.consume_front("vstore")) *isStore = true;
  else return false;
  *half = Name.consume_front("_half");
  if (*half) {
    // Rounding-mode suffixes do not change the bytes.
    for (StringRef R : {"_rte", "_rtz", "_rtp", "_rtn"}) Name.consume_back(R);
  }
  if (Name.empty()) {
    if (!*half) return false;
    *count = 1;
    return true;
  }
  unsigned N = 0;
  if (Name.getAsInteger(10, N)) return false;
  if (N != 2 && N != 3 && N != 4 && N != 8 && N != 16) return false;
  *count = N;
  return true;
}

// e with every wrap_xN replaced by fits_xN: the same value where nothing
// wraps, unevaluable where something would.
ExprPtr wrapsToFits(const ExprPtr& e) {
  if (!e) return e;
  if (e->kind == Expr::Kind::WrapSigned || e->kind == Expr::Kind::WrapUnsigned) {
    auto f = std::make_shared<Expr>(*e);
    f->kind = e->kind == Expr::Kind::WrapSigned ? Expr::Kind::FitsSigned : Expr::Kind::FitsUnsigned;
    f->lhs = wrapsToFits(e->lhs);
    return f;
  }
  ExprPtr l = wrapsToFits(e->lhs), r = wrapsToFits(e->rhs);
  if (l == e->lhs && r == e->rhs) return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->lhs = l;
  copy->rhs = r;
  return copy;
}

class KernelAnalyzer {
 public:
  KernelAnalyzer(Function& F, FunctionAnalysisManager& FAM)
      : F(F), DL(F.getParent()->getDataLayout()), SE(FAM.getResult<ScalarEvolutionAnalysis>(F)),
        LI(FAM.getResult<LoopAnalysis>(F)), DT(FAM.getResult<DominatorTreeAnalysis>(F)) {}

  KernelRegions run() {
    KernelRegions R;
    R.args.resize(F.arg_size());
    // Buffers the kernel never writes: integers loaded from them (indices,
    // CSR row bounds) are the same for every work-item at any time of the
    // launch, so the runtime can read them before it (ScevToExpr.h).
    Loadable.assign(F.arg_size(), false);
    for (Argument& A : F.args()) {
      auto* PT = dyn_cast<PointerType>(A.getType());
      if (!PT || (PT->getAddressSpace() != kGlobalAS && PT->getAddressSpace() != kConstantAS)) continue;
      std::vector<Access> accesses;
      std::string escape;
      collectAccesses(A, accesses, escape);
      Loadable[A.getArgNo()] = escape.empty() && std::none_of(accesses.begin(), accesses.end(), [](const Access& X) {
                                 return X.Write || X.Atomic;
                               });
    }
    for (Argument& A : F.args()) {
      ArgRegions& out = R.args[A.getArgNo()];
      auto* PT = dyn_cast<PointerType>(A.getType());
      if (!PT) continue;
      unsigned AS = PT->getAddressSpace();
      if (AS != kGlobalAS && AS != kConstantAS) continue;
      out.is_buffer = true;
      analyzeArgument(A, out);
    }
    return R;
  }

 private:
  void markUnknown(ArgRegions& out, const std::string& why, bool read, bool write) {
    if (read && out.read.known) out.read = AccessRegion{false, why, {}};
    if (write && out.write.known) out.write = AccessRegion{false, why, {}};
  }

  void analyzeArgument(Argument& A, ArgRegions& out) {
    std::vector<Access> accesses;
    std::string escape;
    collectAccesses(A, accesses, escape);
    if (!escape.empty()) {
      // Any use we do not understand may read and write anything.
      out.reads = out.writes = true;
      markUnknown(out, escape, true, true);
    }
    std::map<std::string, bool> seen[2];
    const SCEV* Base = SE.getSCEV(&A);
    for (const Access& Acc : accesses) {
      out.reads |= Acc.Read;
      out.writes |= Acc.Write;
      out.atomics |= Acc.Atomic;
      if ((!Acc.Read || !out.read.known) && (!Acc.Write || !out.write.known)) continue;
      std::string why;
      std::optional<GuardedRange> part = rangeOf(Acc, Base, &why);
      if (!part) {
        markUnknown(out, why, Acc.Read, Acc.Write);
        continue;
      }
      std::string key = print_region(AccessRegion{true, {}, {*part}});
      for (int dir = 0; dir < 2; ++dir) {
        bool wanted = dir == 0 ? Acc.Read : Acc.Write;
        AccessRegion& reg = dir == 0 ? out.read : out.write;
        if (!wanted || !reg.known || seen[dir].count(key)) continue;
        seen[dir][key] = true;
        reg.parts.push_back(*part);
      }
    }
    if (out.read.known) compact(out.read.parts);
    if (out.write.known) compact(out.write.parts);
  }

  // Parts with the same guards and addresses base + c (c constant: a[i],
  // a[i+1], unrolled loops) become one [base + min c, base + max c'] part;
  // more than kMaxParts parts are folded pairwise with min/max. Both only
  // widen, and keep the run-time evaluation short.
  static void compact(std::vector<GuardedRange>& parts) {
    constexpr size_t kMaxParts = 12;
    auto split = [](const ExprPtr& e) -> std::pair<ExprPtr, int64_t> {
      if (e->kind == Expr::Kind::Add && e->rhs->kind == Expr::Kind::Const) return {e->lhs, e->rhs->value};
      return {e, 0};
    };
    std::vector<GuardedRange> out;
    std::vector<std::string> keys;
    std::vector<std::pair<int64_t, int64_t>> span;  // min lo offset, max hi offset
    for (const GuardedRange& p : parts) {
      auto [loBase, loC] = split(p.lo);
      auto [hiBase, hiC] = split(p.hi);
      std::string key = print_region(AccessRegion{true, {}, {GuardedRange{p.guards, loBase, loBase}}});
      size_t i = 0;
      while (i < out.size() && keys[i] != key) ++i;
      if (i == out.size() || !same_expr(*loBase, *hiBase) || !same_expr(*split(out[i].lo).first, *loBase)) {
        out.push_back(p);
        keys.push_back(same_expr(*loBase, *hiBase) ? key : std::string());
        span.emplace_back(loC, hiC);
        continue;
      }
      span[i].first = std::min(span[i].first, loC);
      span[i].second = std::max(span[i].second, hiC);
      out[i].lo = make_add(loBase, Expr::constant(span[i].first));
      out[i].hi = make_add(loBase, Expr::constant(span[i].second));
    }
    while (out.size() > kMaxParts) {
      // Fold the last two; their guards hold only if either part's did, so
      // the merged part keeps no guard.
      GuardedRange b = out.back();
      out.pop_back();
      GuardedRange& a = out.back();
      a = GuardedRange{{}, make_min(a.lo, b.lo), make_max(a.hi, b.hi)};
    }
    parts = std::move(out);
  }

  void collectAccesses(Argument& A, std::vector<Access>& out, std::string& escape) {
    SmallVector<Value*, 16> work{&A};
    SmallPtrSet<Value*, 32> visited{&A};
    auto push = [&](Value* V) {
      if (visited.insert(V).second) work.push_back(V);
    };
    while (!work.empty()) {
      Value* P = work.pop_back_val();
      for (User* U : P->users()) {
        auto* I = dyn_cast<Instruction>(U);
        if (!I) {
          escape = "used in a constant expression";
          continue;
        }
        if (isa<GetElementPtrInst, BitCastInst, AddrSpaceCastInst, PHINode, SelectInst>(I)) {
          if (auto* Sel = dyn_cast<SelectInst>(I); Sel && Sel->getCondition() == P) continue;
          push(I);
          continue;
        }
        if (auto* L = dyn_cast<LoadInst>(I)) {
          out.push_back(Access{I, P, nullptr, DL.getTypeStoreSize(L->getType()), true, false, false});
          continue;
        }
        if (auto* S = dyn_cast<StoreInst>(I)) {
          if (S->getValueOperand() == P) {
            if (escape.empty()) escape = "pointer stored to memory at " + describeLocation(I);
            continue;
          }
          out.push_back(Access{I, P, nullptr, DL.getTypeStoreSize(S->getValueOperand()->getType()),
                               false, true, false});
          continue;
        }
        if (auto* RMW = dyn_cast<AtomicRMWInst>(I)) {
          if (RMW->getPointerOperand() == P) {
            out.push_back(Access{I, P, nullptr, DL.getTypeStoreSize(RMW->getType()), true, true, true});
            continue;
          }
        }
        if (auto* CX = dyn_cast<AtomicCmpXchgInst>(I)) {
          if (CX->getPointerOperand() == P) {
            out.push_back(Access{I, P, nullptr, DL.getTypeStoreSize(CX->getCompareOperand()->getType()),
                                 true, true, true});
            continue;
          }
        }
        if (isa<ICmpInst>(I)) continue;  // comparing addresses touches no memory
        if (auto* Call = dyn_cast<CallInst>(I)) {
          if (callAccess(Call, P, out)) continue;
          if (escape.empty())
            escape = "passed to call '" +
                     (Call->getCalledFunction() ? builtinName(Call->getCalledFunction()).str()
                                                : std::string("indirect")) +
                     "' at " + describeLocation(I);
          continue;
        }
        if (escape.empty())
          escape = "unsupported use '" + std::string(I->getOpcodeName()) + "' at " + describeLocation(I);
      }
    }
  }

  // Builtins and intrinsics that access memory through P in a known way.
  bool callAccess(CallInst* Call, Value* P, std::vector<Access>& out) {
    if (auto* II = dyn_cast<IntrinsicInst>(Call)) {
      if (II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II)) return true;
      if (auto* MT = dyn_cast<MemTransferInst>(II)) {
        auto* Len = dyn_cast<ConstantInt>(MT->getLength());
        if (!Len || Len->isZero()) return false;
        if (MT->getRawDest() == P) out.push_back(Access{Call, P, nullptr, Len->getZExtValue(), false, true, false});
        if (MT->getRawSource() == P) out.push_back(Access{Call, P, nullptr, Len->getZExtValue(), true, false, false});
        return true;
      }
      if (auto* MS = dyn_cast<MemSetInst>(II)) {
        auto* Len = dyn_cast<ConstantInt>(MS->getLength());
        if (!Len || Len->isZero() || MS->getRawDest() != P) return false;
        out.push_back(Access{Call, P, nullptr, Len->getZExtValue(), false, true, false});
        return true;
      }
      return false;
    }
    StringRef Name = builtinName(Call->getCalledFunction());
    if (Name.empty()) return false;
    // A hint: reads nothing the kernel sees, writes nothing (the CTS's
    // prefetch kernel lost its source region to it: whole-buffer copies and
    // a merge at every split launch).
    if (Name == "prefetch") return true;
    bool isStore = false, half = false;
    unsigned count = 0;
    if (vectorLoadStore(Name, &isStore, &count, &half)) {
      unsigned ptrIdx = isStore ? 2 : 1, offIdx = isStore ? 1 : 0;
      if (Call->arg_size() != ptrIdx + 1 || Call->getArgOperand(ptrIdx) != P) return false;
      uint64_t elem;
      if (half) elem = 2;
      else {
        Type* VT = isStore ? Call->getArgOperand(0)->getType() : Call->getType();
        auto* Vec = dyn_cast<FixedVectorType>(VT);
        if (!Vec) return false;
        elem = DL.getTypeStoreSize(Vec->getElementType());
      }
      uint64_t bytes = elem * count;
      Value* Off = Call->getArgOperand(offIdx);
      if (!SE.isSCEVable(Off->getType())) return false;
      const SCEV* OffS = SE.getMulExpr(SE.getTruncateOrZeroExtend(SE.getSCEV(Off), SE.getEffectiveSCEVType(P->getType())),
                                       SE.getConstant(SE.getEffectiveSCEVType(P->getType()), bytes));
      out.push_back(Access{Call, P, OffS, bytes, !isStore, isStore, false});
      return true;
    }
    if (Name == "async_work_group_copy" || Name == "async_work_group_strided_copy") {
      // Every work-item of the group passes the same arguments; the global
      // side covers n elements (or n elements `stride` apart) from P.
      bool strided = Name == "async_work_group_strided_copy";
      if (Call->arg_size() != (strided ? 5u : 4u)) return false;
      bool isDst = Call->getArgOperand(0) == P, isSrc = Call->getArgOperand(1) == P;
      uint64_t es = firstPointeeSize(Call->getCalledFunction()->getName());
      Value* N = Call->getArgOperand(2);
      if (isDst == isSrc || es == 0 || !SE.isSCEVable(N->getType())) return false;
      Type* IdxTy = SE.getEffectiveSCEVType(P->getType());
      const SCEV* Count = SE.getTruncateOrZeroExtend(SE.getSCEV(N), IdxTy);
      const SCEV* Elems = Count;  // elements spanned
      if (strided) {
        Value* Stride = Call->getArgOperand(3);
        if (!SE.isSCEVable(Stride->getType())) return false;
        Elems = SE.getAddExpr(SE.getMulExpr(SE.getMinusSCEV(Count, SE.getOne(IdxTy)),
                                            SE.getTruncateOrZeroExtend(SE.getSCEV(Stride), IdxTy)),
                              SE.getOne(IdxTy));
      }
      Access A{Call, P, nullptr, 0, isSrc, isDst, false};
      A.SymSize = SE.getMulExpr(Elems, SE.getConstant(IdxTy, es));
      out.push_back(A);
      return true;
    }
    if (Name.contains("atom")) {
      // atomic_add(p, v), atom_inc(p), atomic_cmpxchg(p, c, v)...: read and
      // write one element of the value type.
      if (Call->arg_size() == 0 || Call->getArgOperand(0) != P) return false;
      for (unsigned i = 1; i < Call->arg_size(); ++i)
        if (Call->getArgOperand(i) == P) return false;
      Type* T = Call->getType();
      if (T->isVoidTy() && Call->arg_size() > 1) T = Call->getArgOperand(1)->getType();
      if (!T->isIntegerTy() && !T->isFloatingPointTy()) return false;
      out.push_back(Access{Call, P, nullptr, DL.getTypeStoreSize(T), true, true, true});
      return true;
    }
    return false;
  }

  std::optional<GuardedRange> rangeOf(const Access& Acc, const SCEV* Base, std::string* why) {
    const Loop* Scope = LI.getLoopFor(Acc.I->getParent());
    const SCEV* PS = SE.getSCEV(Acc.Ptr);
    if (Acc.ExtraOffset) PS = SE.getAddExpr(PS, Acc.ExtraOffset);
    PS = SE.getSCEVAtScope(PS, Scope);
    if (isa<SCEVCouldNotCompute>(PS) || SE.getPointerBase(PS) != Base) {
      *why = "address not an affine function of the argument at " + describeLocation(Acc.I);
      return std::nullopt;
    }
    const SCEV* Off = SE.removePointerBase(PS);
    ScevToExpr T(SE, LI, F, &Loadable);
    ExprPtr lo = T.translate(Off);
    if (!lo) {
      *why = T.reason().empty() ? "address not computable at " + describeLocation(Acc.I) : T.reason();
      return std::nullopt;
    }
    GuardedRange part;
    part.lo = lo;
    if (Acc.SymSize) {
      // A count of 0 gives hi < lo: no byte, as the evaluator reads it.
      ExprPtr bytes = T.translate(Acc.SymSize);
      if (!bytes) {
        *why = T.reason().empty() ? "copy length not computable at " + describeLocation(Acc.I) : T.reason();
        return std::nullopt;
      }
      part.hi = make_add(make_add(lo, bytes), Expr::constant(-1));
    } else if (Acc.Size == 0) {
      *why = "access of unknown size at " + describeLocation(Acc.I);
      return std::nullopt;
    } else {
      part.hi = make_add(lo, Expr::constant(int64_t(Acc.Size - 1)));
    }
    collectGuards(Acc.I->getParent(), part.guards);
    return part;
  }

  // Uniform conditions ±id <= expr on every path to BB (dominating branch
  // edges). Anything else is taken as true (no guard), which is sound.
  void collectGuards(BasicBlock* BB, std::vector<Guard>& guards) {
    DomTreeNode* N = DT.getNode(BB);
    if (!N) return;
    for (DomTreeNode* D = N->getIDom(); D && guards.size() < 8; D = D->getIDom()) {
      auto* Br = dyn_cast<BranchInst>(D->getBlock()->getTerminator());
      if (!Br || !Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1)) continue;
      for (unsigned s = 0; s < 2; ++s)
        if (DT.dominates(BasicBlockEdge(D->getBlock(), Br->getSuccessor(s)), BB))
          conditionGuards(Br->getCondition(), s == 0, guards, 0);
    }
  }

  void conditionGuards(Value* Cond, bool holds, std::vector<Guard>& guards, int depth) {
    if (depth > 4) return;
    if (auto* B = dyn_cast<BinaryOperator>(Cond)) {
      // (a && b) true: both true; (a || b) false: both false.
      if ((B->getOpcode() == Instruction::And && holds) || (B->getOpcode() == Instruction::Or && !holds)) {
        conditionGuards(B->getOperand(0), holds, guards, depth + 1);
        conditionGuards(B->getOperand(1), holds, guards, depth + 1);
      }
      return;
    }
    if (auto* Sel = dyn_cast<SelectInst>(Cond)) {  // logical and/or after simplifycfg
      auto* C = dyn_cast<ConstantInt>(Sel->getFalseValue());
      if (holds && C && C->isZero()) {  // select a, b, false == a && b
        conditionGuards(Sel->getCondition(), true, guards, depth + 1);
        conditionGuards(Sel->getTrueValue(), true, guards, depth + 1);
      }
      auto* C1 = dyn_cast<ConstantInt>(Sel->getTrueValue());
      if (!holds && C1 && C1->isOne()) {  // select a, true, b == a || b
        conditionGuards(Sel->getCondition(), false, guards, depth + 1);
        conditionGuards(Sel->getFalseValue(), false, guards, depth + 1);
      }
      return;
    }
    auto* Cmp = dyn_cast<ICmpInst>(Cond);
    if (!Cmp || !SE.isSCEVable(Cmp->getOperand(0)->getType())) return;
    CmpInst::Predicate Pred = holds ? Cmp->getPredicate() : Cmp->getInversePredicate();
    const Loop* Scope = LI.getLoopFor(Cmp->getParent());
    if (Pred == CmpInst::ICMP_EQ && maskGuard(Cmp, Scope, guards)) return;
    const SCEV* L = SE.getSCEVAtScope(Cmp->getOperand(0), Scope);
    const SCEV* R = SE.getSCEVAtScope(Cmp->getOperand(1), Scope);
    if (!tryGuard(Pred, L, R, guards)) tryGuard(CmpInst::getSwappedPredicate(Pred), R, L, guards);
  }

  // InstCombine turns `(uint)id < 16` into `(id & 0xFFFFFFF0) == 0`: a mask
  // of contiguous bits k..W-1 means (id mod 2^W) < 2^k, i.e. id <= 2^k - 1
  // as long as id fits W unsigned bits (checked at run time).
  bool maskGuard(ICmpInst* Cmp, const Loop* Scope, std::vector<Guard>& guards) {
    auto* Zero = dyn_cast<ConstantInt>(Cmp->getOperand(1));
    auto* And = dyn_cast<BinaryOperator>(Cmp->getOperand(0));
    if (!Zero || !Zero->isZero() || !And || And->getOpcode() != Instruction::And) return false;
    auto* Mask = dyn_cast<ConstantInt>(And->getOperand(1));
    if (!Mask || Mask->isZero() || Mask->getBitWidth() > 64) return false;
    uint64_t m = Mask->getZExtValue();
    unsigned k = unsigned(__builtin_ctzll(m)), top = 64 - unsigned(__builtin_clzll(m));
    uint64_t contiguous = (top == 64 ? ~uint64_t(0) : (uint64_t(1) << top) - 1) & ~((uint64_t(1) << k) - 1);
    if (m != contiguous || k >= 63) return false;
    ScevToExpr T(SE, LI, F, &Loadable);
    ExprPtr l = T.translate(SE.getSCEVAtScope(And->getOperand(0), Scope));
    if (!l || l->kind != Expr::Kind::Var || !mentionsWorkItemId(*l)) return false;
    Guard g;
    g.var = l->var;
    g.dim = unsigned(l->value);
    g.hi = make_add(Expr::constant(int64_t((uint64_t(1) << k) - 1)),
                    Expr::binary(Expr::Kind::Mul, Expr::constant(0), make_fits(l, top, false)));
    guards.push_back(g);
    return true;
  }

  // L pred R with L = id + c (c constant) and R uniform.
  bool tryGuard(CmpInst::Predicate Pred, const SCEV* L, const SCEV* R, std::vector<Guard>& guards) {
    if (Pred == CmpInst::ICMP_NE) return false;
    // Translate with a scratch translator so failures do not leak reasons.
    ScevToExpr Scratch(SE, LI, F, &Loadable);
    bool isSigned = CmpInst::isSigned(Pred) || Pred == CmpInst::ICMP_EQ;
    ExprPtr l = Scratch.translate(L);
    if (!l) return false;
    int64_t c = 0;
    ExprPtr id = l;
    // The comparison sees L as a W-bit value; the guard bounds the id itself,
    // so it only applies when nothing in L wraps: every wrap (and L itself)
    // re-checked as a fits, which fails (no guard) otherwise.
    auto strip = [](ExprPtr e) {
      while (e->kind == Expr::Kind::FitsSigned || e->kind == Expr::Kind::FitsUnsigned ||
             e->kind == Expr::Kind::WrapSigned || e->kind == Expr::Kind::WrapUnsigned)
        e = e->lhs;
      return e;
    };
    id = strip(id);
    if (id->kind == Expr::Kind::Add && id->rhs->kind == Expr::Kind::Const) {
      c = id->rhs->value;
      id = strip(id->lhs);
    }
    if (id->kind != Expr::Kind::Var || !mentionsWorkItemId(*id)) return false;
    ExprPtr bound = Scratch.translateAs(R, isSigned);
    if (!bound || mentionsWorkItemId(*bound)) return false;
    ExprPtr lhsCheck = make_fits(wrapsToFits(l), SE.getTypeSizeInBits(L->getType()), isSigned);
    if (lhsCheck != l) bound = make_add(bound, Expr::binary(Expr::Kind::Mul, Expr::constant(0), lhsCheck));
    bound = make_sub(bound, Expr::constant(c));
    Guard g;
    g.var = id->var;
    g.dim = unsigned(id->value);
    switch (Pred) {
      case CmpInst::ICMP_SLT:
      case CmpInst::ICMP_ULT: g.hi = make_sub(bound, Expr::constant(1)); break;
      case CmpInst::ICMP_SLE:
      case CmpInst::ICMP_ULE: g.hi = bound; break;
      case CmpInst::ICMP_SGT:
      case CmpInst::ICMP_UGT: g.lo = make_add(bound, Expr::constant(1)); break;
      case CmpInst::ICMP_SGE:
      case CmpInst::ICMP_UGE: g.lo = bound; break;
      case CmpInst::ICMP_EQ: g.lo = g.hi = bound; break;
      default: return false;
    }
    guards.push_back(g);
    return true;
  }

  Function& F;
  const DataLayout& DL;
  ScalarEvolution& SE;
  LoopInfo& LI;
  DominatorTree& DT;
  std::vector<bool> Loadable;  // per IR argument: a buffer never written
};

}  // namespace

KernelRegions KernelRegionAnalysis::run(Function& F, FunctionAnalysisManager& FAM) {
  return KernelAnalyzer(F, FAM).run();
}

PreservedAnalyses KernelRegionPrinterPass::run(Function& F, FunctionAnalysisManager& FAM) {
  if (F.getCallingConv() != CallingConv::SPIR_KERNEL || F.isDeclaration()) return PreservedAnalyses::all();
  const KernelRegions& R = FAM.getResult<KernelRegionAnalysis>(F);
  OS << "kernel " << F.getName() << "\n";
  for (size_t i = 0; i < R.args.size(); ++i) {
    if (!R.args[i].is_buffer) continue;
    OS << "  arg " << i << " read: " << print_region(R.args[i].read) << "\n";
    OS << "  arg " << i << " write: " << print_region(R.args[i].write) << "\n";
  }
  return PreservedAnalyses::all();
}

}  // namespace libsplit
