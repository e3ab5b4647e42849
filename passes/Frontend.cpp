#include "Frontend.h"

#include "DeviceMacros.h"
#include "KernelSummaries.h"
#include "PartitionRewriter.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>

namespace libsplit::cc {

FrontendOutput::FrontendOutput() = default;
FrontendOutput::FrontendOutput(FrontendOutput&&) noexcept = default;
FrontendOutput::~FrontendOutput() {
  module.reset();  // before the context that owns its types
  context.reset();
}

namespace {

// A compiler instance set up for the program, diagnostics going to os.
// nullptr when the options themselves are rejected (reason printed to os).
std::unique_ptr<clang::CompilerInstance> makeInstance(const FrontendInput& in,
                                                      llvm::raw_ostream& os) {
  std::vector<std::string> args = {
      "-triple", "spir64-unknown-unknown", "-x", "cl", "-finclude-default-header",
      "-fdeclare-opencl-builtins", "-resource-dir", in.resourceDir, "-O0", "-disable-O0-optnone",
      "-cl-kernel-arg-info", "-debug-info-kind=line-tables-only", "-ferror-limit", "50"};
  args.insert(args.end(), in.clangOptions.begin(), in.clangOptions.end());
  args.push_back(in.path);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());

  auto ci = std::make_unique<clang::CompilerInstance>();
  {
    auto opts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    clang::TextDiagnosticPrinter printer(os, opts.get());
    clang::DiagnosticsEngine diags(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), opts,
                                   &printer, /*ShouldOwnClient=*/false);
    clang::LangOptions langOpts;
    printer.BeginSourceFile(langOpts, nullptr);
    bool ok = clang::CompilerInvocation::CreateFromArgs(ci->getInvocation(), argv, diags);
    printer.EndSourceFile();
    if (!ok || diags.hasErrorOccurred()) return nullptr;
  }
  ci->getDiagnosticOpts().ShowColors = false;
  ci->setVerboseOutputStream(os);  // "N errors generated." joins the diagnostics
  ci->createDiagnostics(new clang::TextDiagnosticPrinter(os, &ci->getDiagnosticOpts()),
                        /*ShouldOwnClient=*/true);
  ci->getPreprocessorOpts().addRemappedFile(
      in.path, llvm::MemoryBuffer::getMemBufferCopy(in.source, in.path).release());
  if (!in.deviceMacroHeader.empty()) {
    // After the default header, which -finclude-default-header put first.
    ci->getPreprocessorOpts().Includes.push_back(kDeviceMacroHeaderName);
    ci->getPreprocessorOpts().addRemappedFile(
        kDeviceMacroHeaderName,
        llvm::MemoryBuffer::getMemBufferCopy(in.deviceMacroHeader, kDeviceMacroHeaderName).release());
  }
  ci->getPreprocessorOpts().RetainRemappedFileBuffers = false;
  return ci;
}

class PartitionConsumer : public clang::ASTConsumer {
 public:
  PartitionConsumer(const FrontendInput& in, FrontendOutput& out) : in_(in), out_(out) {}

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    if (ctx.getDiagnostics().hasErrorOccurred()) return;
    RewriteResult r = rewriteForPartition(ctx, in_.path);
    if (!r.ok) {
      out_.error = r.error;
      return;
    }
    out_.partitionReady = std::move(r.source);
    out_.kernels = summarizeKernelsFromAST(ctx);
    const clang::SourceManager& sm = ctx.getSourceManager();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
      std::string name = it->first->getName().str();
      if (name != in_.path && name != kDeviceMacroHeaderName)
        out_.includedFiles.push_back(std::move(name));
    }
    std::sort(out_.includedFiles.begin(), out_.includedFiles.end());
  }

 private:
  const FrontendInput& in_;
  FrontendOutput& out_;
};

class CompileAction : public clang::EmitLLVMOnlyAction {
 public:
  CompileAction(llvm::LLVMContext* ctx, const FrontendInput& in, FrontendOutput& out)
      : EmitLLVMOnlyAction(ctx), in_(in), out_(out) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef file) override {
    auto codegen = EmitLLVMOnlyAction::CreateASTConsumer(ci, file);
    if (!codegen) return nullptr;
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(std::make_unique<PartitionConsumer>(in_, out_));
    consumers.push_back(std::move(codegen));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

 private:
  const FrontendInput& in_;
  FrontendOutput& out_;
};

}  // namespace

FrontendOutput runFrontend(const FrontendInput& in) {
  FrontendOutput out;
  llvm::raw_string_ostream os(out.diagnostics);
  auto ci = makeInstance(in, os);
  if (!ci) {
    out.error = "the build options were rejected";
    return out;
  }
  out.context = std::make_unique<llvm::LLVMContext>();
  CompileAction action(out.context.get(), in, out);
  bool ran = ci->ExecuteAction(action);
  os.flush();
  if (!ran || ci->getDiagnostics().hasErrorOccurred()) return out;
  if (!out.error.empty()) return out;
  out.module = action.takeModule();
  if (!out.module) {
    out.error = "Clang produced no LLVM module";
    return out;
  }
  out.ok = true;
  return out;
}

bool checkCompiles(const FrontendInput& in, std::string* diagnostics) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto ci = makeInstance(in, os);
  bool ok = false;
  if (ci) {
    clang::SyntaxOnlyAction action;
    ok = ci->ExecuteAction(action) && !ci->getDiagnostics().hasErrorOccurred();
  }
  os.flush();
  if (diagnostics) *diagnostics = text;
  return ok;
}

}  // namespace libsplit::cc
