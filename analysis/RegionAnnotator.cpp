#include "RegionAnnotator.h"

#include "RegionAnalysis.h"

#include <llvm/IR/Attributes.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <map>

using namespace llvm;

namespace libsplit {

namespace {

// Owns the four analysis managers the new pass manager needs.
struct Managers {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB;
  Managers() {
    FAM.registerPass([] { return KernelRegionAnalysis(); });
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  }
};

// get_global_size(0) & co. are pure but convergent, so LICM leaves them in
// loops, where ScalarEvolution sees a new unknown per iteration (no
// induction). One call per (builtin, dim) at the function entry fixes that.
void hoistWorkItemQueries(Function& F) {
  static const StringRef kPure[] = {"_Z13get_global_idj",   "_Z12get_local_idj",    "_Z12get_group_idj",
                                    "_Z15get_global_sizej", "_Z14get_local_sizej",  "_Z14get_num_groupsj",
                                    "_Z17get_global_offsetj", "_Z12get_work_dimv", "_Z20get_global_linear_idv",
                                    "_Z19get_local_linear_idv"};
  std::map<std::pair<Function*, uint64_t>, CallInst*> first;
  std::vector<CallInst*> dead;
  BasicBlock& Entry = F.getEntryBlock();
  for (BasicBlock& BB : F)
    for (Instruction& I : BB) {
      auto* C = dyn_cast<CallInst>(&I);
      Function* Callee = C ? C->getCalledFunction() : nullptr;
      if (!Callee || std::find(std::begin(kPure), std::end(kPure), Callee->getName()) == std::end(kPure))
        continue;
      uint64_t dim = ~uint64_t(0);
      if (C->arg_size() == 1) {
        auto* D = dyn_cast<ConstantInt>(C->getArgOperand(0));
        if (!D) continue;
        dim = D->getZExtValue();
      } else if (C->arg_size() != 0) {
        continue;
      }
      auto [it, inserted] = first.try_emplace({Callee, dim}, C);
      if (!inserted) dead.push_back(C);
    }
  for (auto& [key, C] : first) C->moveBefore(&*Entry.getFirstInsertionPt());
  for (CallInst* C : dead) {
    C->replaceAllUsesWith(first[{C->getCalledFunction(), C->arg_size() ? cast<ConstantInt>(C->getArgOperand(0))->getZExtValue() : ~uint64_t(0)}]);
    C->eraseFromParent();
  }
}

}  // namespace

void prepareForRegions(Module& M) {
  for (Function& F : M) {
    if (F.isDeclaration()) continue;
    F.removeFnAttr(Attribute::OptimizeNone);
    F.removeFnAttr(Attribute::NoInline);
    // Kernels too: a kernel may call another kernel (the callee stays).
    F.addFnAttr(Attribute::AlwaysInline);
  }
  auto run = [&](const char* pipeline) {
    Managers Mg;
    ModulePassManager MPM;
    if (Error E = Mg.PB.parsePassPipeline(MPM, pipeline)) {
      consumeError(std::move(E));  // fixed pipeline strings: cannot fail
      return;
    }
    MPM.run(M, Mg.MAM);
  };
  run("always-inline,function(sroa,early-cse,instcombine,simplifycfg)");
  for (Function& F : M)
    if (!F.isDeclaration()) hoistWorkItemQueries(F);
  // LICM hoists loads of loop bounds (CSR row_ptr[i + 1]) out of loops that
  // store nothing they may alias: ScalarEvolution then sees one invariant
  // value and a trip count (resolved at launch from the buffer's contents).
  run("function(loop-simplify,lcssa,loop(loop-rotate),instcombine,loop-simplify,lcssa,"
      "loop-mssa(licm),loop-simplify,lcssa)");
}

void annotateRegions(Module& M, ProgramSummary& summary) {
  prepareForRegions(M);
  Managers Mg;
  for (KernelSummary& K : summary.kernels) {
    Function* F = M.getFunction(K.name);
    for (ArgSummary& A : K.args) {
      A.read_region = AccessRegion{false, "region analysis found no kernel '" + K.name + "' in the IR", {}};
      A.write_region = A.read_region;
    }
    if (!F || F->isDeclaration()) continue;
    const KernelRegions& R = Mg.FAM.getResult<KernelRegionAnalysis>(*F);
    for (ArgSummary& A : K.args) {
      if (A.index >= R.args.size()) continue;
      const ArgRegions& AR = R.args[A.index];
      A.read_region = AR.read;
      A.write_region = AR.write;
      A.reads |= AR.reads;
      A.writes |= AR.writes;
      A.atomics |= AR.atomics;
    }
  }
}

ProgramSummary regionSummary(Module& M) {
  ProgramSummary S;
  S.tool = "libsplit region analysis";
  for (Function& F : M) {
    if (F.isDeclaration() || F.getCallingConv() != CallingConv::SPIR_KERNEL) continue;
    KernelSummary K;
    K.name = F.getName().str();
    for (Argument& A : F.args()) {
      ArgSummary AS;
      AS.index = A.getArgNo();
      AS.name = A.getName().str();
      if (auto* PT = dyn_cast<PointerType>(A.getType())) {
        AS.is_pointer = true;
        switch (PT->getAddressSpace()) {
          case 1: AS.address_space = AddressSpace::Global; break;
          case 2: AS.address_space = AddressSpace::Constant; break;
          case 3: AS.address_space = AddressSpace::Local; break;
          default: AS.address_space = AddressSpace::Private; break;
        }
      }
      K.args.push_back(AS);
    }
    S.kernels.push_back(std::move(K));
  }
  annotateRegions(M, S);
  return S;
}

std::string printRegions(Module& M) {
  prepareForRegions(M);
  Managers Mg;
  std::string text;
  raw_string_ostream OS(text);
  KernelRegionPrinterPass Printer(OS);
  for (Function& F : M)
    if (!F.isDeclaration() && F.getCallingConv() == CallingConv::SPIR_KERNEL) Printer.run(F, Mg.FAM);
  OS.flush();
  return text;
}

}  // namespace libsplit
