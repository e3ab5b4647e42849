#include "ArgAccess.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

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

namespace {

using namespace llvm;

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

void merge(ArgAccess& into, const ArgAccess& from) {
  into.reads |= from.reads;
  into.writes |= from.writes;
  into.atomics |= from.atomics;
  into.escapes |= from.escapes;
}

void escape(ArgAccess& a) {
  a.reads = a.writes = a.escapes = true;
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
          acc.reads = true;
        } else if (const auto* st = dyn_cast<StoreInst>(u)) {
          if (st->getPointerOperand() == v && st->getValueOperand() != v) acc.writes = true;
          else escape(acc);
        } else if (const auto* rmw = dyn_cast<AtomicRMWInst>(u)) {
          if (rmw->getPointerOperand() != v) escape(acc);
          acc.reads = acc.writes = acc.atomics = true;
        } else if (const auto* cx = dyn_cast<AtomicCmpXchgInst>(u)) {
          if (cx->getPointerOperand() != v) escape(acc);
          acc.reads = acc.writes = acc.atomics = true;
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
        merge(acc, builtinAccess(openclBuiltinName(callee->getName()), i, call.arg_size()));
      } else if (i < callee->arg_size()) {
        merge(acc, param(*callee, i));
      } else {
        escape(acc);  // variadic part
      }
    }
  }

  static void intrinsic(const IntrinsicInst& intr, unsigned argNo, ArgAccess& acc) {
    switch (intr.getIntrinsicID()) {
      case Intrinsic::memcpy:
      case Intrinsic::memmove:
      case Intrinsic::memcpy_inline:
        (argNo == 0 ? acc.writes : acc.reads) = true;
        return;
      case Intrinsic::memset:
      case Intrinsic::memset_inline:
        acc.writes = true;
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
