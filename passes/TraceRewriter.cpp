#include "TraceRewriter.h"

#include "DeviceMacros.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Lexer.h>
#include <clang/Rewrite/Core/Rewriter.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/raw_ostream.h>

#include <map>
#include <set>

using namespace clang;

namespace libsplit::trace {

namespace {

// Prepended to the program: the marking helper. Returns the index so that it
// can wrap a subscript in place.
constexpr const char* kPrelude = R"(
long __ls_mark(__global uint* __ls_sh, ulong4 __ls_s, long __ls_i, ulong __ls_es) {
  size_t __ls_g = get_group_id((uint)__ls_s.x);
  if (__ls_g >= __ls_s.y && __ls_g < __ls_s.y + __ls_s.z) {
    ulong __ls_b = (ulong)__ls_i * __ls_es;
    for (ulong __ls_k = 0; __ls_k < __ls_es; ++__ls_k)
      atomic_or(&__ls_sh[(__ls_b + __ls_k) >> 5], 1u << ((__ls_b + __ls_k) & 31));
  }
  return __ls_i;
}
long __ls_mark_span(__global uint* __ls_sh, ulong4 __ls_s, long __ls_first, ulong __ls_n, ulong __ls_stride,
                    ulong __ls_es) {
  for (ulong __ls_j = 0; __ls_j < __ls_n; ++__ls_j)
    __ls_mark(__ls_sh, __ls_s, __ls_first + (long)(__ls_j * __ls_stride), __ls_es);
  return 0;
}
)";

bool isBufferPointer(const ParmVarDecl* P) {
  const auto* PT = P->getType()->getAs<PointerType>();
  if (!PT) return false;
  LangAS AS = PT->getPointeeType().getAddressSpace();
  return AS == LangAS::opencl_global || AS == LangAS::opencl_constant;
}

class KernelTracer : public RecursiveASTVisitor<KernelTracer> {
 public:
  KernelTracer(ASTContext& Ctx, Rewriter& RW, FunctionDecl* K, TracedKernel& Out)
      : Ctx(Ctx), RW(RW), K(K), Out(Out) {}

  void run() {
    // Parameters written to or whose address is taken: not traced.
    TraverseStmt(K->getBody());
    Collecting = false;
    for (ParmVarDecl* P : K->parameters())
      if (isBufferPointer(P) && !P->getName().empty()) {
        if (Modified.count(P)) {
          Out.notes.push_back(std::string(P->getName()) + ": reassigned in the kernel, not traced");
          continue;
        }
        Traced.insert(P);
        Out.traced_params.push_back(P->getFunctionScopeIndex());
      }
    TraverseStmt(K->getBody());
    appendParameters();
  }

  bool VisitBinaryOperator(BinaryOperator* B) {
    if (Collecting && B->isAssignmentOp()) noteModified(B->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator* U) {
    if (Collecting) {
      if (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) noteModified(U->getSubExpr());
      return true;
    }
    if (U->getOpcode() == UO_Deref) {
      if (ParmVarDecl* P = tracedBase(U->getSubExpr())) {
        if (U->getBeginLoc().isMacroID() || U->getEndLoc().isMacroID()) return true;
        // *p -> p[mark(0)]
        std::string name = P->getName().str();
        RW.ReplaceText(U->getSourceRange(), name + "[" + markText(P, U, "0") + "]");
      }
    }
    return true;
  }
  // vloadN(offset, p) / vstoreN(v, offset, p): the offset counts N-element
  // vectors, so marking offset with an element size of N*sizeof(*p) marks
  // exactly the bytes moved.
  bool VisitCallExpr(CallExpr* C) {
    if (Collecting) return true;
    const FunctionDecl* F = C->getDirectCallee();
    if (!F || !F->getIdentifier()) return true;
    StringRef Name = F->getName();
    if ((Name == "async_work_group_copy" && C->getNumArgs() == 4) ||
        (Name == "async_work_group_strided_copy" && C->getNumArgs() == 5)) {
      // The global side: n elements (stride apart) from the pointer passed,
      // marked by every work-item of the group (the arguments are uniform).
      bool strided = Name == "async_work_group_strided_copy";
      for (unsigned side = 0; side < 2; ++side) {
        Expr* E = C->getArg(side);
        ParmVarDecl* P = pointerBase(E);
        if (!P || E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID()) continue;
        std::string name = P->getName().str();
        std::string e = text(E), n = text(C->getArg(2)), stride = strided ? text(C->getArg(3)) : "1";
        if (e.empty() || n.empty() || stride.empty()) continue;
        RW.InsertTextBefore(E->getBeginLoc(), "(");
        RW.InsertTextAfterToken(E->getEndLoc(), " + __ls_mark_span(__ls_" + std::string(side == 0 ? "w_" : "r_") +
                                                    name + ", __ls_slice, (" + e + ") - " + name + ", (" + n +
                                                    "), (" + stride + "), sizeof(" + name + "[0])))");
      }
      return true;
    }
    if (Name.contains("atom") && C->getNumArgs() >= 1) {
      // atomic_add(p, v): p[0] is read and written.
      Expr* A0 = C->getArg(0);
      ParmVarDecl* P = tracedBase(A0);
      if (P && !A0->getBeginLoc().isMacroID() && !A0->getEndLoc().isMacroID()) {
        std::string name = P->getName().str(), size = "sizeof(" + name + "[0])";
        RW.InsertTextBefore(A0->getBeginLoc(), "(");
        RW.InsertTextAfterToken(A0->getEndLoc(), " + __ls_mark(__ls_w_" + name + ", __ls_slice, __ls_mark(__ls_r_" +
                                                     name + ", __ls_slice, 0, " + size + "), " + size + "))");
      }
      return true;
    }
    bool store = Name.consume_front("vstore");
    if (!store && !Name.consume_front("vload")) return true;
    unsigned n = 0;
    if (Name.getAsInteger(10, n) || (n != 2 && n != 3 && n != 4 && n != 8 && n != 16)) return true;
    unsigned offIdx = store ? 1 : 0, ptrIdx = store ? 2 : 1;
    if (C->getNumArgs() != ptrIdx + 1) return true;
    ParmVarDecl* P = tracedBase(C->getArg(ptrIdx));
    Expr* Off = C->getArg(offIdx);
    if (!P || Off->getBeginLoc().isMacroID() || Off->getEndLoc().isMacroID()) return true;
    std::string name = P->getName().str();
    RW.InsertTextBefore(Off->getBeginLoc(), "__ls_mark(__ls_" + std::string(store ? "w_" : "r_") + name +
                                                ", __ls_slice, (long)(");
    RW.InsertTextAfterToken(Off->getEndLoc(), "), " + std::to_string(n) + " * sizeof(" + name + "[0]))");
    return true;
  }

  bool VisitArraySubscriptExpr(ArraySubscriptExpr* A) {
    if (Collecting) return true;
    ParmVarDecl* P = tracedBase(A->getBase());
    if (!P) return true;
    Expr* Idx = A->getIdx();
    if (A->getBeginLoc().isMacroID() || A->getEndLoc().isMacroID() || Idx->getBeginLoc().isMacroID() ||
        Idx->getEndLoc().isMacroID())
      return true;
    std::string open, close;
    markWrap(P, A, open, close);
    if (open.empty()) return true;  // a use we do not trace
    RW.InsertTextBefore(Idx->getBeginLoc(), open);
    RW.InsertTextAfterToken(Idx->getEndLoc(), close);
    return true;
  }

 private:
  void noteModified(Expr* E) {
    if (auto* D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      if (auto* P = dyn_cast<ParmVarDecl>(D->getDecl())) Modified.insert(P);
  }

  // The traced parameter a pointer expression is computed from: p, p + i,
  // &p[i] (same element type, so `expr - p` counts elements).
  ParmVarDecl* pointerBase(Expr* E) {
    E = E->IgnoreParenImpCasts();
    if (auto* B = dyn_cast<BinaryOperator>(E); B && B->getOpcode() == BO_Add && B->getLHS()->getType()->isPointerType())
      return pointerBase(B->getLHS());
    if (auto* U = dyn_cast<UnaryOperator>(E); U && U->getOpcode() == UO_AddrOf)
      if (auto* A = dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens())) return tracedBase(A->getBase());
    ParmVarDecl* P = tracedBase(E);
    if (!P) return nullptr;
    // Same element type as the parameter, or the element count is wrong.
    QualType PT = P->getType()->getPointeeType().getUnqualifiedType();
    QualType ET = E->getType()->isPointerType() ? E->getType()->getPointeeType().getUnqualifiedType() : QualType();
    return PT == ET ? P : nullptr;
  }

  std::string text(const Expr* E) {
    return Lexer::getSourceText(CharSourceRange::getTokenRange(E->getSourceRange()), Ctx.getSourceManager(),
                                Ctx.getLangOpts())
        .str();
  }

  ParmVarDecl* tracedBase(Expr* E) {
    auto* D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    if (!D) return nullptr;
    auto* P = dyn_cast<ParmVarDecl>(D->getDecl());
    return P && Traced.count(P) ? P : nullptr;
  }

  // How the element at E is used: read, write or both; none when the use
  // touches only part of the element (member/component access).
  void accessKind(const Expr* E, bool& read, bool& write) {
    read = true;
    write = false;
    const Expr* Cur = E;
    for (int depth = 0; depth < 4; ++depth) {
      auto Parents = Ctx.getParents(*Cur);
      if (Parents.empty()) return;
      if (const auto* PE = Parents[0].get<ParenExpr>()) {
        Cur = PE;
        continue;
      }
      if (const auto* B = Parents[0].get<BinaryOperator>()) {
        if (B->isAssignmentOp() && B->getLHS()->IgnoreParens() == E->IgnoreParens()) {
          write = true;
          read = B->isCompoundAssignmentOp();
        }
        return;
      }
      if (const auto* U = Parents[0].get<UnaryOperator>()) {
        if (U->isIncrementDecrementOp()) write = true;
        if (U->getOpcode() == UO_AddrOf) {
          // &p[i] handed to an atomic builtin: read and written. Anywhere
          // else (a helper, pointer arithmetic) we do not know: not traced.
          read = write = false;
          auto Up = Ctx.getParents(*U);
          while (!Up.empty() && (Up[0].get<ImplicitCastExpr>() || Up[0].get<ParenExpr>() ||
                                 Up[0].get<CStyleCastExpr>()))
            Up = Ctx.getParents(Up[0]);
          if (!Up.empty())
            if (const auto* Call = Up[0].get<CallExpr>())
              if (const FunctionDecl* F = Call->getDirectCallee();
                  F && F->getIdentifier() && F->getName().contains("atom"))
                read = write = true;
        }
        return;
      }
      if (Parents[0].get<MemberExpr>() || Parents[0].get<ExtVectorElementExpr>()) {
        read = write = false;
        return;
      }
      return;
    }
  }

  std::string markText(ParmVarDecl* P, const Expr* E, const std::string& index) {
    std::string open, close;
    markWrap(P, E, open, close);
    return open.empty() ? index : open + index + close;
  }

  void markWrap(ParmVarDecl* P, const Expr* E, std::string& open, std::string& close) {
    bool read, write;
    accessKind(E, read, write);
    std::string name = P->getName().str(), size = "sizeof(" + name + "[0])";
    if (read) {
      open = "__ls_mark(__ls_r_" + name + ", __ls_slice, (long)(";
      close = "), " + size + ")";
    }
    if (write) {
      open = "__ls_mark(__ls_w_" + name + ", __ls_slice, " + (read ? open : std::string("(long)("));
      close = (read ? close : std::string(")")) + ", " + size + ")";
    }
  }

  void appendParameters() {
    std::string extra;
    for (unsigned idx : Out.traced_params) {
      std::string name = K->getParamDecl(idx)->getName().str();
      extra += ", __global uint* __ls_r_" + name + ", __global uint* __ls_w_" + name;
    }
    extra += ", ulong4 __ls_slice";
    FunctionTypeLoc FTL = K->getFunctionTypeLoc();
    if (!FTL) return;
    if (K->getNumParams() == 0)
      RW.ReplaceText(SourceRange(FTL.getLParenLoc().getLocWithOffset(1), FTL.getRParenLoc().getLocWithOffset(-1)),
                     extra.substr(2));
    else
      RW.InsertTextBefore(FTL.getRParenLoc(), extra);
  }

  ASTContext& Ctx;
  Rewriter& RW;
  FunctionDecl* K;
  TracedKernel& Out;
  bool Collecting = true;
  std::set<const ParmVarDecl*> Modified, Traced;
};

struct CalleeCollector : RecursiveASTVisitor<CalleeCollector> {
  std::set<const FunctionDecl*> Callees;
  bool VisitCallExpr(CallExpr* C) {
    if (const FunctionDecl* F = C->getDirectCallee()) Callees.insert(F->getCanonicalDecl());
    return true;
  }
};

class TraceConsumer : public ASTConsumer {
 public:
  TraceConsumer(Rewriter& RW, TraceResult& R) : RW(RW), R(R) {}
  void HandleTranslationUnit(ASTContext& Ctx) override {
    RW.setSourceMgr(Ctx.getSourceManager(), Ctx.getLangOpts());
    SourceManager& SM = Ctx.getSourceManager();
    CalleeCollector Calls;
    Calls.TraverseDecl(Ctx.getTranslationUnitDecl());
    for (Decl* D : Ctx.getTranslationUnitDecl()->decls()) {
      auto* F = dyn_cast<FunctionDecl>(D);
      if (!F || !F->hasAttr<OpenCLKernelAttr>() || !F->doesThisDeclarationHaveABody()) continue;
      if (!SM.isInMainFile(F->getLocation())) continue;
      TracedKernel K;
      K.name = F->getNameAsString();
      K.user_args = F->getNumParams();
      if (Calls.Callees.count(F->getCanonicalDecl())) {
        // Its callers would need the extra arguments too: left as is.
        K.instrumented = false;
        K.notes.push_back("called from other functions: not instrumented");
      } else {
        KernelTracer(Ctx, RW, F, K).run();
      }
      R.kernels.push_back(std::move(K));
    }
    const RewriteBuffer* Buf = RW.getRewriteBufferFor(SM.getMainFileID());
    std::string body = Buf ? std::string(Buf->begin(), Buf->end()) : std::string(SM.getBufferData(SM.getMainFileID()));
    R.source = kPrelude + std::string("#line 1\n") + body;
  }

 private:
  Rewriter& RW;
  TraceResult& R;
};

class TraceAction : public ASTFrontendAction {
 public:
  explicit TraceAction(TraceResult& R) : R(R) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance&, StringRef) override {
    return std::make_unique<TraceConsumer>(RW, R);
  }

 private:
  Rewriter RW;
  TraceResult& R;
};

}  // namespace

TraceResult instrument_for_tracing(const std::string& source, const std::vector<std::string>& clang_args,
                                   const std::string& resource_dir, const std::string& device_macros) {
  TraceResult R;
  tooling::FileContentMappings virtualFiles;
  std::vector<std::string> deviceArgs;
  if (!device_macros.empty()) {
    std::string err;
    auto set = cc::parseDeviceMacros(device_macros, &err);
    if (!set) {
      R.error = err;
      return R;
    }
    cc::DeviceMacroSetup setup = cc::deviceMacroSetup(*set, clang_args);
    for (const auto& a : setup.clangArgs) {
      if (a.rfind("-cl-std=", 0) == 0) {
        deviceArgs.push_back(a);
      } else {
        deviceArgs.push_back("-Xclang");
        deviceArgs.push_back(a);
      }
    }
    deviceArgs.push_back("-include");
    deviceArgs.push_back(cc::kDeviceMacroHeaderName);
    virtualFiles.emplace_back(cc::kDeviceMacroHeaderName, setup.header);
  }
  std::vector<std::string> args = {"-x", "cl", "-target", "spir64-unknown-unknown", "-Xclang",
                                   "-finclude-default-header", "-resource-dir=" + resource_dir,
                                   "-fsyntax-only", "-Wno-everything"};
  bool hasStd = false;
  for (const auto& a : clang_args) hasStd |= a.rfind("-cl-std=", 0) == 0;
  for (const auto& a : deviceArgs) hasStd |= a.rfind("-cl-std=", 0) == 0;
  if (!hasStd) args.push_back("-cl-std=CL1.2");
  args.insert(args.end(), deviceArgs.begin(), deviceArgs.end());
  args.insert(args.end(), clang_args.begin(), clang_args.end());
  std::string diags;
  llvm::raw_string_ostream DOS(diags);
  auto DiagOpts = llvm::makeIntrusiveRefCnt<DiagnosticOptions>();
  TextDiagnosticPrinter Printer(DOS, DiagOpts.get());
  bool ok = tooling::runToolOnCodeWithArgs(std::make_unique<TraceAction>(R), source, args, "input.cl",
                                           "libsplit-trace", std::make_shared<PCHContainerOperations>(),
                                           virtualFiles);
  (void)Printer;
  DOS.flush();
  R.ok = ok && !R.source.empty();
  if (!R.ok) R.error = "the program does not compile" + (diags.empty() ? std::string() : ": " + diags);
  return R;
}

bool print_traced_program(const std::string& source, const std::vector<std::string>& build_options,
                          const std::string& resource_dir, std::ostream& out, std::ostream& err,
                          const std::string& device_macros) {
  TraceResult r = resource_dir.empty()
                      ? instrument_for_tracing(source, build_options, "/usr/lib/llvm-16/lib/clang/16", device_macros)
                      : instrument_for_tracing(source, build_options, resource_dir, device_macros);
  if (!r.ok) {
    err << r.error << "\n";
    return false;
  }
  for (const TracedKernel& k : r.kernels) {
    if (!k.instrumented) {
      out << "// UNTRACED " << k.name << "\n";
    } else {
      out << "// TRACED " << k.name << " ";
      for (size_t p = 0; p < k.traced_params.size(); ++p) out << (p ? "," : "") << k.traced_params[p];
      out << "\n";
    }
    for (const std::string& n : k.notes) out << "// NOTE " << k.name << ": " << n << "\n";
  }
  out << r.source;
  return true;
}

}  // namespace libsplit::trace
