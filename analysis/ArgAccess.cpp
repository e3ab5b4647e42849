#include "ArgAccess.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <map>
#include <set>

namespace libsplit {

std::string_view openclBuiltinName(std::string_view mangled) {
  if (mangled.substr(0, 2) != "_Z") return mangled;
  size_t pos = 2, len = 0;
  while (pos < mangled.size() && mangled[pos] >= '0' && mangled[pos] <= '9')
    len = len * 10 + size_t(mangled[pos++] - '0');
  if (len == 0 || pos + len > mangled.size()) return mangled;
  return mangled.substr(pos, len);
}

std::string ArgAccess::whyNotReduction() const {
  if (!atomics || isReductionBuffer()) return "";
  if (!not_reduction.empty()) return not_reduction;
  if (escapes) return "the pointer escapes the analysis";
  if (plain) return "also loaded or stored other than by atomics";
  return "no reduction update";
}

namespace {

using namespace llvm;

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

void notReduction(ArgAccess& a, std::string why) {
  if (a.not_reduction.empty()) a.not_reduction = std::move(why);
}

// One more reduction update on the pointer: the same operation and width as
// the others, or the pointer is no reduction buffer.
void addReduction(ArgAccess& a, ReductionOp op, unsigned bits) {
  if (a.reduction == ReductionOp::None) {
    a.reduction = op;
    a.reduction_bits = bits;
  } else if (a.reduction != op || a.reduction_bits != bits) {
    notReduction(a, std::string("mixes atomic ") + reduction_op_name(a.reduction) +
                        std::to_string(a.reduction_bits) + " and " + reduction_op_name(op) +
                        std::to_string(bits) + " updates");
  }
}

// One more write covering whole units of `unit` bytes.
void addStoreUnit(ArgAccess& a, uint64_t unit) {
  unit = unit ? std::min<uint64_t>(unit, 128) : 1;
  a.store_unit = a.store_unit ? std::min<unsigned>(a.store_unit, unsigned(unit)) : unsigned(unit);
}

// The largest power of two dividing x (0 for 0).
uint64_t lowestBit(uint64_t x) { return x & (~x + 1); }

// The unit a write of `bytes` at alignment `align` covers whole.
uint64_t writeUnit(uint64_t bytes, uint64_t align) {
  uint64_t unit = lowestBit(bytes);
  return std::min(unit ? unit : 1, align ? lowestBit(align) : 1);
}

void merge(ArgAccess& into, const ArgAccess& from) {
  if (from.store_unit) addStoreUnit(into, from.store_unit);
  into.reads |= from.reads;
  into.writes |= from.writes;
  into.atomics |= from.atomics;
  into.escapes |= from.escapes;
  into.plain |= from.plain;
  if (!from.not_reduction.empty()) notReduction(into, from.not_reduction);
  if (from.reduction != ReductionOp::None) addReduction(into, from.reduction, from.reduction_bits);
}

void escape(ArgAccess& a) {
  a.reads = a.writes = a.escapes = a.plain = true;
  a.store_unit = 1;
}

// Bytes of one element of a mangled builtin's first pointer parameter (its
// pointee: scalars and vectors Dv<n>_<t>); 1 when not known.
uint64_t pointeeBytes(char letter) {
  switch (letter) {
    case 'c': case 'h': case 'a': return 1;
    case 's': case 't': return 2;
    case 'i': case 'j': case 'f': return 4;
    case 'l': case 'm': case 'd': return 8;
    default: return 1;
  }
}

// Bytes a store of type t writes.
uint64_t storeBytes(const Instruction& i, Type* t) {
  return i.getModule()->getDataLayout().getTypeStoreSize(t).getFixedValue();
}

// Integer width in bits of an atomic's value: 32 or 64, else 0.
unsigned atomicBits(const Type* t) {
  return t->isIntegerTy(32) ? 32 : t->isIntegerTy(64) ? 64 : 0;
}

// The reduction an atomicrmw on the pointer performs; records why not.
void classifyRMW(const AtomicRMWInst& rmw, ArgAccess& a) {
  ReductionOp op = ReductionOp::None;
  switch (rmw.getOperation()) {
    case AtomicRMWInst::Add:
    case AtomicRMWInst::Sub: op = ReductionOp::Add; break;
    case AtomicRMWInst::And: op = ReductionOp::And; break;
    case AtomicRMWInst::Or: op = ReductionOp::Or; break;
    case AtomicRMWInst::Xor: op = ReductionOp::Xor; break;
    case AtomicRMWInst::Min: op = ReductionOp::Min; break;
    case AtomicRMWInst::Max: op = ReductionOp::Max; break;
    case AtomicRMWInst::UMin: op = ReductionOp::UMin; break;
    case AtomicRMWInst::UMax: op = ReductionOp::UMax; break;
    default:
      return notReduction(a, std::string("atomicrmw ") +
                                 AtomicRMWInst::getOperationName(rmw.getOperation()).str() +
                                 " is not a reduction update");
  }
  unsigned bits = atomicBits(rmw.getValOperand()->getType());
  if (!bits) return notReduction(a, "atomic update of a value other than a 32/64-bit integer");
  if (rmw.getOrdering() != AtomicOrdering::Monotonic)
    return notReduction(a, "atomic update with an order other than relaxed");
  if (!rmw.use_empty()) return notReduction(a, "the result of an atomic update is used");
  addReduction(a, op, bits);
}

// The pointee of a mangled builtin's first parameter, a pointer: its
// builtin-type letter ('i' int, 'j' uint, 'l' long, 'm' ulong, 'f' float...)
// after the qualifiers (address space, volatile, const, _Atomic); 0 when the
// name does not have that shape.
char firstPointeeType(std::string_view mangled) {
  std::string_view name = openclBuiltinName(mangled);
  if (name.size() == mangled.size()) return 0;
  size_t pos = size_t(name.data() + name.size() - mangled.data());
  if (pos >= mangled.size() || mangled[pos] != 'P') return 0;
  ++pos;
  while (pos < mangled.size()) {
    char c = mangled[pos];
    if (c == 'V' || c == 'K' || c == 'r') {
      ++pos;
    } else if (c == 'U') {  // vendor qualifier <len><name>: U3AS1, U7_Atomic
      size_t len = 0, p = pos + 1;
      while (p < mangled.size() && mangled[p] >= '0' && mangled[p] <= '9')
        len = len * 10 + size_t(mangled[p++] - '0');
      if (len == 0 || p + len > mangled.size()) return 0;
      pos = p + len;
    } else {
      return c;
    }
  }
  return 0;
}

// The reduction an OpenCL atomic builtin call performs on its argument
// argNo; records why not. OpenCL 1.x atomic_* / atom_* (relaxed by
// definition) and C11-style atomic_fetch_*_explicit with memory_order_relaxed.
void classifyAtomicCall(const CallBase& call, std::string_view mangled, unsigned argNo,
                        ArgAccess& a) {
  std::string_view name = openclBuiltinName(mangled);
  std::string why = "atomic " + std::string(name) + " is not a reduction update";
  if (argNo != 0) return notReduction(a, "passed to " + std::string(name) + " as argument " +
                                             std::to_string(argNo));
  std::string_view op;
  bool explicitOrder = false;
  if (startsWith(name, "atomic_fetch_")) {
    op = name.substr(13);
    if (op.size() > 9 && op.substr(op.size() - 9) == "_explicit") {
      op = op.substr(0, op.size() - 9);
      explicitOrder = true;
    } else if (op == "add" || op == "sub" || op == "and" || op == "or" || op == "xor" ||
               op == "min" || op == "max") {
      return notReduction(a, std::string(name) + " is sequentially consistent, not relaxed");
    }
  } else if (startsWith(name, "atomic_")) {
    op = name.substr(7);
  } else if (startsWith(name, "atom_")) {
    op = name.substr(5);
  }
  char pointee = firstPointeeType(mangled);
  bool isSigned = pointee == 'i' || pointee == 'l';
  unsigned typeBits = (pointee == 'i' || pointee == 'j') ? 32 : (pointee == 'l' || pointee == 'm') ? 64 : 0;
  ReductionOp kind = ReductionOp::None;
  if (op == "add" || op == "sub" || op == "inc" || op == "dec") kind = ReductionOp::Add;
  else if (op == "and") kind = ReductionOp::And;
  else if (op == "or") kind = ReductionOp::Or;
  else if (op == "xor") kind = ReductionOp::Xor;
  else if (op == "min") kind = isSigned ? ReductionOp::Min : ReductionOp::UMin;
  else if (op == "max") kind = isSigned ? ReductionOp::Max : ReductionOp::UMax;
  else return notReduction(a, why);
  unsigned bits = atomicBits(call.getType());
  if (!bits || bits != typeBits)
    return notReduction(a, "atomic " + std::string(name) + " on a value other than a 32/64-bit integer");
  if (explicitOrder) {
    const auto* order = call.arg_size() > 2 ? dyn_cast<ConstantInt>(call.getArgOperand(2)) : nullptr;
    if (!order || !order->isZero())  // memory_order_relaxed is 0
      return notReduction(a, std::string(name) + " with an order other than memory_order_relaxed");
  }
  if (!call.use_empty()) return notReduction(a, "the result of " + std::string(name) + " is used");
  addReduction(a, kind, bits);
}

// What an external OpenCL builtin does with its pointer argument number argNo.
ArgAccess builtinAccess(std::string_view name, unsigned argNo, unsigned numArgs) {
  ArgAccess a;
  if (startsWith(name, "vload")) {
    a.reads = true;
  } else if (startsWith(name, "vstore")) {
    a.writes = true;
  } else if (startsWith(name, "atomic_load")) {
    a.reads = a.atomics = true;
  } else if (startsWith(name, "atomic_store") || startsWith(name, "atomic_init")) {
    a.writes = a.atomics = true;
  } else if (startsWith(name, "atomic_") || startsWith(name, "atom_")) {
    // fetch-ops, exchange, compare-exchange (whose "expected" pointer is
    // read and written too), flags.
    a.reads = a.writes = a.atomics = true;
  } else if (startsWith(name, "__opencl_atomic_") || startsWith(name, "__atomic_") ||
             startsWith(name, "__sync_")) {
    // Clang's library forms of atomics: the object is the first argument.
    if (argNo == 0) a.reads = a.writes = a.atomics = true;
    else escape(a);
  } else if (startsWith(name, "async_work_group")) {
    (argNo == 0 ? a.writes : a.reads) = true;
  } else if (name == "prefetch" || name == "wait_group_events") {
    // No access to the data (prefetch is a hint).
  } else if (name == "fract" || name == "modf" || name == "frexp" || name == "lgamma_r" ||
             name == "remquo" || name == "sincos") {
    // The pointer is the out-parameter (the last one).
    if (argNo + 1 == numArgs) a.writes = true;
    else escape(a);
  } else if (name == "printf") {
    a.reads = true;
  } else {
    escape(a);
  }
  return a;
}

// The unit a builtin's write through its pointer argument covers whole: the
// element of vstoreN (aligned to one element only), a half for vstore_half,
// the pointee of atomics and async copies, the scalar of an out-parameter.
uint64_t builtinWriteUnit(const CallBase& call, std::string_view mangled) {
  std::string_view name = openclBuiltinName(mangled);
  const Type* first = call.arg_size() ? call.getArgOperand(0)->getType() : nullptr;
  if (startsWith(name, "vstore_half") || startsWith(name, "vstorea_half")) return 2;
  if (startsWith(name, "vstore")) return first ? first->getScalarSizeInBits() / 8 : 1;
  if (name == "frexp" || name == "lgamma_r" || name == "remquo") return 4;  // int out-parameter
  if (name == "fract" || name == "modf" || name == "sincos")
    return call.getType()->getScalarSizeInBits() / 8;
  return pointeeBytes(firstPointeeType(mangled));
}

class Walker {
 public:
  ArgAccess param(const Function& F, unsigned index) {
    auto key = std::make_pair(&F, index);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    ArgAccess a;
    if (!active_.insert(key).second) {
      escape(a);  // recursion (not legal OpenCL): give up on precision
      return a;
    }
    walk(F.getArg(index), a);
    active_.erase(key);
    memo_[key] = a;
    return a;
  }

 private:
  void walk(const Value* root, ArgAccess& acc) {
    SmallPtrSet<const Value*, 32> seen;
    SmallVector<const Value*, 32> work{root};
    seen.insert(root);
    auto follow = [&](const Value* v) {
      if (seen.insert(v).second) work.push_back(v);
    };
    while (!work.empty()) {
      const Value* v = work.pop_back_val();
      for (const User* u : v->users()) {
        if (isa<GetElementPtrInst, BitCastInst, AddrSpaceCastInst, PHINode, FreezeInst>(u) ||
            (isa<ConstantExpr>(u) && u->getType()->isPointerTy())) {
          follow(u);
        } else if (const auto* sel = dyn_cast<SelectInst>(u)) {
          if (sel->getCondition() == v) escape(acc);
          else follow(sel);
        } else if (isa<LoadInst>(u)) {
          acc.reads = acc.plain = true;
        } else if (const auto* st = dyn_cast<StoreInst>(u)) {
          if (st->getPointerOperand() == v && st->getValueOperand() != v) {
            acc.writes = acc.plain = true;
            addStoreUnit(acc, writeUnit(storeBytes(*st, st->getValueOperand()->getType()),
                                        st->getAlign().value()));
          } else {
            escape(acc);
          }
        } else if (const auto* rmw = dyn_cast<AtomicRMWInst>(u)) {
          if (rmw->getPointerOperand() != v) escape(acc);
          acc.reads = acc.writes = acc.atomics = true;
          addStoreUnit(acc, writeUnit(storeBytes(*rmw, rmw->getValOperand()->getType()),
                                      rmw->getAlign().value()));
          classifyRMW(*rmw, acc);
        } else if (const auto* cx = dyn_cast<AtomicCmpXchgInst>(u)) {
          if (cx->getPointerOperand() != v) escape(acc);
          acc.reads = acc.writes = acc.atomics = true;
          addStoreUnit(acc, writeUnit(storeBytes(*cx, cx->getNewValOperand()->getType()),
                                      cx->getAlign().value()));
          notReduction(acc, "compare-and-exchange is not a reduction update");
        } else if (const auto* call = dyn_cast<CallBase>(u)) {
          this->call(*call, v, acc);
        } else if (isa<ICmpInst>(u)) {
          // Comparing pointers reads no memory.
        } else {
          // ptrtoint, return, aggregates, ...: the pointer leaves our sight.
          escape(acc);
        }
      }
    }
  }

  void call(const CallBase& call, const Value* v, ArgAccess& acc) {
    if (call.getCalledOperand() == v) {
      escape(acc);
      return;
    }
    const Function* callee = call.getCalledFunction();
    for (unsigned i = 0; i < call.arg_size(); ++i) {
      if (call.getArgOperand(i) != v) continue;
      if (!callee) {
        escape(acc);
      } else if (const auto* intr = dyn_cast<IntrinsicInst>(&call)) {
        intrinsic(*intr, i, acc);
      } else if (callee->isDeclaration()) {
        ArgAccess b = builtinAccess(openclBuiltinName(callee->getName()), i, call.arg_size());
        if (b.atomics) classifyAtomicCall(call, callee->getName(), i, b);
        else if (b.reads || b.writes) b.plain = true;
        if (b.writes && !b.store_unit) addStoreUnit(b, builtinWriteUnit(call, callee->getName()));
        merge(acc, b);
      } else if (i < callee->arg_size()) {
        merge(acc, param(*callee, i));
      } else {
        escape(acc);  // variadic part
      }
    }
  }

  // A memcpy/memset into the pointer covers whole units of its length and
  // destination alignment (bytes when either is unknown).
  static uint64_t memIntrinsicUnit(const IntrinsicInst& intr) {
    const auto* len = dyn_cast<ConstantInt>(intr.getArgOperand(2));
    const MaybeAlign align = intr.getParamAlign(0);
    return len && align ? writeUnit(len->getZExtValue(), align->value()) : 1;
  }

  static void intrinsic(const IntrinsicInst& intr, unsigned argNo, ArgAccess& acc) {
    switch (intr.getIntrinsicID()) {
      case Intrinsic::memcpy:
      case Intrinsic::memmove:
      case Intrinsic::memcpy_inline:
        (argNo == 0 ? acc.writes : acc.reads) = true;
        acc.plain = true;
        if (argNo == 0) addStoreUnit(acc, memIntrinsicUnit(intr));
        return;
      case Intrinsic::memset:
      case Intrinsic::memset_inline:
        acc.writes = acc.plain = true;
        addStoreUnit(acc, memIntrinsicUnit(intr));
        return;
      case Intrinsic::lifetime_start:
      case Intrinsic::lifetime_end:
      case Intrinsic::prefetch:
      case Intrinsic::dbg_declare:
      case Intrinsic::dbg_value:
      case Intrinsic::invariant_start:
      case Intrinsic::invariant_end:
        return;
      default:
        escape(acc);
    }
  }

  std::map<std::pair<const Function*, unsigned>, ArgAccess> memo_;
  std::set<std::pair<const Function*, unsigned>> active_;
};

}  // namespace

std::vector<ArgAccess> analyzeArgAccess(const llvm::Function& F) {
  Walker w;
  std::vector<ArgAccess> out(F.arg_size());
  for (unsigned i = 0; i < F.arg_size(); ++i)
    if (F.getArg(i)->getType()->isPointerTy()) out[i] = w.param(F, i);
  return out;
}

}  // namespace libsplit
