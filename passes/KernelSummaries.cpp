#include "KernelSummaries.h"

#include "ArgAccess.h"
#include "PartitionRewriter.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <llvm/ADT/SetVector.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

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
    std::string atomicWhy;
    for (ArgSummary& a : k.args) {
      if (!a.is_pointer || a.index >= access.size()) continue;
      a.reads = access[a.index].reads;
      a.writes = access[a.index].writes;
      a.atomics = access[a.index].atomics;
      if (a.atomics && a.address_space == AddressSpace::Global && atomicWhy.empty())
        atomicWhy = "argument '" + a.name + "'";
    }
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
              if ((startsWith(name, "atomic_") || startsWith(name, "atom_")) &&
                  call->arg_size() > 0 && call->getArgOperand(0)->getType()->isPointerTy())
                atomicPtr = call->getArgOperand(0);
            }
          if (atomicPtr && mayBeGlobal(atomicPtr) && atomicWhy.empty())
            atomicWhy = "in function '" + g->getName().str() + "'";
        }
    }
    if (!atomicWhy.empty()) k.uses_global_atomics = true;
    if (k.uses_images && k.splittable) {
      k.splittable = false;
      k.not_splittable_reason = "images are not supported";
    }
    if (k.uses_global_atomics && k.splittable) {
      k.splittable = false;
      k.not_splittable_reason = "global atomics (" + atomicWhy +
                                "): results may depend on every work-group of the launch";
    }
  }
}

}  // namespace libsplit::cc
