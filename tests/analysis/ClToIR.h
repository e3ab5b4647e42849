// Test helper: OpenCL C source -> LLVM IR module with the clang-16 binary
// (spir64, -O0 without optnone, debug lines), as the region analysis sees it.
#pragma once

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>

namespace libsplit::test {

std::unique_ptr<llvm::Module> compileCL(const std::string& source, const std::string& options,
                                        llvm::LLVMContext& ctx, std::string* error);

}  // namespace libsplit::test
