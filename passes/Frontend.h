// Clang, in process: parses an OpenCL C program for spir64, produces its
// partition-ready source and AST kernel facts (one AST consumer), and its
// LLVM IR (Clang CodeGen) in the same pass over the source.
#pragma once

#include "libsplit/summary.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace libsplit::cc {

struct FrontendInput {
  std::string path;                // file name in diagnostics and #line
  std::string source;              // the program text
  std::vector<std::string> clangOptions;  // filtered build options
  std::string resourceDir;         // Clang resource dir (opencl-c-base.h)
  // Included right after Clang's default header (DeviceMacros.h): leaves the
  // device's predefined macros defined. Empty: Clang's own.
  std::string deviceMacroHeader;
};

struct FrontendOutput {
  bool ok = false;
  std::string diagnostics;         // Clang's own text: file:line:col: error: ...
  std::string error;               // a failure that is not a Clang diagnostic
  std::string partitionReady;
  std::vector<KernelSummary> kernels;  // AST facts only
  std::vector<std::string> includedFiles;  // every file read besides the input
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  FrontendOutput();
  FrontendOutput(FrontendOutput&&) noexcept;
  ~FrontendOutput();
};

FrontendOutput runFrontend(const FrontendInput& in);

// Parses and type-checks a program (no code generation). False with the
// diagnostics in *diagnostics when it does not compile.
bool checkCompiles(const FrontendInput& in, std::string* diagnostics);

}  // namespace libsplit::cc
