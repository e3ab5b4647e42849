#include "KernelSummaries.h"

#include "ArgAccess.h"
#include "PartitionRewriter.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <llvm/ADT/SetVector.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Operator.h>
#include <llvm/IR/Module.h>
#include <algorithm>

namespace libsplit::cc {

namespace {

AddressSpace addressSpaceOf(clang::LangAS as) {
  switch (as) {
    case clang::LangAS::opencl_global:
    case clang::LangAS::opencl_global_device:
    case clang::LangAS::opencl_global_host: return AddressSpace::Global;
    case clang::LangAS::opencl_constant: return AddressSpace::Constant;
    case clang::LangAS::opencl_local: return AddressSpace::Local;
    default: return AddressSpace::Private;
  }
}

ArgSummary summarizeArg(clang::ASTContext& ctx, const clang::ParmVarDecl* p, unsigned index,
                        KernelSummary& k) {
  clang::PrintingPolicy policy = ctx.getPrintingPolicy();
  clang::QualType t = p->getType();
  ArgSummary a;
  a.index = index;
  a.name = p->getNameAsString();
  a.size = uint64_t(ctx.getTypeSizeInChars(t).getQuantity());
  if (const auto* pt = t->getAs<clang::PointerType>()) {
    clang::QualType pointee = pt->getPointeeType();
    a.is_pointer = true;
    a.address_space = addressSpaceOf(pointee.getAddressSpace());
    a.is_const = pointee.isConstQualified() || a.address_space == AddressSpace::Constant;
    a.is_restrict = t.isRestrictQualified();
    a.type = pointee.getUnqualifiedType().getAsString(policy) + "*";
    if (a.address_space == AddressSpace::Local) k.uses_local_memory = true;
  } else if (t->isImageType() || t->isSamplerT() || t->isPipeType()) {
    a.is_image = true;
    a.address_space = AddressSpace::Global;
    a.type = t.getUnqualifiedType().getAsString(policy);
    k.uses_images = true;
    if (k.splittable) {
      k.splittable = false;
      k.not_splittable_reason = t->isPipeType() ? "pipes are not supported (argument '" + a.name + "')"
                                                : "images are not supported (argument '" + a.name + "')";
    }
  } else {
    a.is_const = t.isConstQualified();
    a.type = t.getUnqualifiedType().getAsString(policy);
  }
  return a;
}

// Functions reachable from f through direct calls, f included.
llvm::SetVector<const llvm::Function*> reachable(const llvm::Function& f) {
  llvm::SetVector<const llvm::Function*> out;
  out.insert(&f);
  for (size_t i = 0; i < out.size(); ++i)
    for (const auto& bb : *out[i])
      for (const auto& inst : bb)
        if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst))
          if (const llvm::Function* callee = call->getCalledFunction()) out.insert(callee);
  return out;
}

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// SPIR address spaces: 1 global, 3 local, 4 generic (may be global).
bool mayBeGlobal(const llvm::Value* ptr) {
  unsigned as = ptr->getType()->getPointerAddressSpace();
  return as == 1 || as == 4;
}

// Adds to `roots` the arguments of kernel f that ptr may be derived from
// (through GEPs, casts, phis, selects); false when it may come from anything
// else (a load, an integer, another function's parameter, ...).
bool kernelArgRoots(const llvm::Value* ptr, const llvm::Function& f,
                    llvm::SmallPtrSetImpl<const llvm::Argument*>& roots) {
  llvm::SmallPtrSet<const llvm::Value*, 16> seen;
  llvm::SmallVector<const llvm::Value*, 16> work{ptr};
  while (!work.empty()) {
    const llvm::Value* v = work.pop_back_val();
    if (!seen.insert(v).second) continue;
    if (const auto* arg = llvm::dyn_cast<llvm::Argument>(v)) {
      if (arg->getParent() != &f) return false;
      roots.insert(arg);
    } else if (const auto* gep = llvm::dyn_cast<llvm::GEPOperator>(v)) {
      work.push_back(gep->getPointerOperand());
    } else if (const auto* op = llvm::dyn_cast<llvm::Operator>(v);
               op && (op->getOpcode() == llvm::Instruction::BitCast ||
                      op->getOpcode() == llvm::Instruction::AddrSpaceCast)) {
      work.push_back(op->getOperand(0));
    } else if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(v)) {
      for (const llvm::Value* in : phi->incoming_values()) work.push_back(in);
    } else if (const auto* sel = llvm::dyn_cast<llvm::SelectInst>(v)) {
      work.push_back(sel->getTrueValue());
      work.push_back(sel->getFalseValue());
    } else if (const auto* fr = llvm::dyn_cast<llvm::FreezeInst>(v)) {
      work.push_back(fr->getOperand(0));
    } else {
      return false;
    }
  }
  return true;
}

// Library forms of atomics Clang emits for __opencl_atomic_*, __atomic_* and
// __sync_* builtins (never reductions: not classified).
bool isLibraryAtomic(std::string_view name) {
  return startsWith(name, "__opencl_atomic_") || startsWith(name, "__atomic_") ||
         startsWith(name, "__sync_");
}

}  // namespace

std::vector<KernelSummary> summarizeKernelsFromAST(clang::ASTContext& ctx) {
  std::vector<KernelSummary> out;
  for (const clang::Decl* d : ctx.getTranslationUnitDecl()->decls()) {
    const auto* fd = llvm::dyn_cast<clang::FunctionDecl>(d);
    if (!fd || !fd->doesThisDeclarationHaveABody() || !fd->hasAttr<clang::OpenCLKernelAttr>())
      continue;
    KernelSummary k;
    k.name = fd->getNameAsString();
    for (unsigned i = 0; i < fd->getNumParams(); ++i)
      k.args.push_back(summarizeArg(ctx, fd->getParamDecl(i), i, k));
    if (const auto* a = fd->getAttr<clang::ReqdWorkGroupSizeAttr>()) {
      k.reqd_work_group_size[0] = a->getXDim();
      k.reqd_work_group_size[1] = a->getYDim();
      k.reqd_work_group_size[2] = a->getZDim();
    }
    if (const auto* a = fd->getAttr<clang::WorkGroupSizeHintAttr>()) {
      k.work_group_size_hint[0] = a->getXDim();
      k.work_group_size_hint[1] = a->getYDim();
      k.work_group_size_hint[2] = a->getZDim();
    }
    k.hidden_args.push_back({kCtxName, kCtxType, kCtxMeaning});
    out.push_back(std::move(k));
  }
  return out;
}

void addIRFacts(llvm::Module& m, ProgramSummary& summary) {
  for (KernelSummary& k : summary.kernels) {
    const llvm::Function* f = m.getFunction(k.name);
    if (!f || f->isDeclaration()) {
      k.splittable = false;
      k.not_splittable_reason = "kernel not found in the IR";
      continue;
    }
    std::vector<ArgAccess> access = analyzeArgAccess(*f);
    for (ArgSummary& a : k.args) {
      if (!a.is_pointer || a.index >= access.size()) continue;
      const ArgAccess& acc = access[a.index];
      a.reads = acc.reads;
      a.writes = acc.writes;
      a.atomics = acc.atomics;
      a.store_unit = acc.writes ? std::max(acc.store_unit, 1u) : 0;
      if (acc.isReductionBuffer() && a.address_space == AddressSpace::Global) {
        a.reduction = acc.reduction;
        a.reduction_bits = acc.reduction_bits;
      }
    }
    // Every atomic on memory that may be global must update a reduction
    // buffer argument, or the kernel runs whole.
    std::string atomicWhy;
    for (const ArgSummary& a : k.args)
      if (a.atomics && a.address_space == AddressSpace::Global && a.reduction == ReductionOp::None &&
          atomicWhy.empty())
        atomicWhy = "argument '" + a.name + "': " + access[a.index].whyNotReduction();
    auto unclaimed = [&](const llvm::Value* ptr, const llvm::Function& g) {
      if (!atomicWhy.empty()) return;
      llvm::SmallPtrSet<const llvm::Argument*, 4> roots;
      if (&g != f || !kernelArgRoots(ptr, *f, roots)) {
        atomicWhy = "in function '" + g.getName().str() + "', on memory not traced to a kernel argument";
        return;
      }
      for (const llvm::Argument* root : roots) {
        const ArgSummary* a = root->getArgNo() < k.args.size() ? &k.args[root->getArgNo()] : nullptr;
        if (a && a->reduction != ReductionOp::None) continue;
        std::string why = a ? "argument '" + a->name + "'" : "an argument";
        if (root->getArgNo() < access.size() && !access[root->getArgNo()].whyNotReduction().empty())
          why += ": " + access[root->getArgNo()].whyNotReduction();
        else if (a && a->address_space != AddressSpace::Global)
          why += ": not a global buffer";
        atomicWhy = why;
        return;
      }
    };
    for (const llvm::Function* g : reachable(*f)) {
      if (g->isDeclaration()) {
        std::string_view name = openclBuiltinName(g->getName());
        if (name == "barrier" || name == "work_group_barrier" || startsWith(name, "work_group_") ||
            name == "sub_group_barrier")
          k.uses_barrier = true;
        if (startsWith(name, "read_image") || startsWith(name, "write_image") ||
            startsWith(name, "get_image_"))
          k.uses_images = true;
        continue;
      }
      for (const auto& bb : *g)
        for (const auto& inst : bb) {
          for (const llvm::Value* op : inst.operands())
            if (const auto* gv = llvm::dyn_cast<llvm::GlobalVariable>(op->stripPointerCasts()))
              if (gv->getAddressSpace() == 3) k.uses_local_memory = true;
          const llvm::Value* atomicPtr = nullptr;
          if (const auto* rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&inst))
            atomicPtr = rmw->getPointerOperand();
          else if (const auto* cx = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&inst))
            atomicPtr = cx->getPointerOperand();
          else if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst))
            if (const llvm::Function* callee = call->getCalledFunction()) {
              std::string_view name = openclBuiltinName(callee->getName());
              if ((startsWith(name, "atomic_") || startsWith(name, "atom_") || isLibraryAtomic(name)) &&
                  call->arg_size() > 0 && call->getArgOperand(0)->getType()->isPointerTy())
                atomicPtr = call->getArgOperand(0);
            }
          if (atomicPtr && mayBeGlobal(atomicPtr)) {
            k.uses_global_atomics = true;
            unclaimed(atomicPtr, *g);
          }
        }
    }
    if (k.uses_images && k.splittable) {
      k.splittable = false;
      k.not_splittable_reason = "images are not supported";
    }
    if (!atomicWhy.empty() && k.splittable) {
      k.splittable = false;
      k.not_splittable_reason = "global atomics (" + atomicWhy +
                                "): results may depend on every work-group of the launch";
    }
  }
}

}  // namespace libsplit::cc
