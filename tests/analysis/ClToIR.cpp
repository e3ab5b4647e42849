#include "ClToIR.h"

#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/SourceMgr.h>

#include <fstream>
#include <sstream>

namespace libsplit::test {

std::unique_ptr<llvm::Module> compileCL(const std::string& source, const std::string& options,
                                        llvm::LLVMContext& ctx, std::string* error) {
  llvm::SmallString<128> in, out, err;
  llvm::sys::fs::createTemporaryFile("regions", "cl", in);
  llvm::sys::fs::createTemporaryFile("regions", "ll", out);
  llvm::sys::fs::createTemporaryFile("regions", "err", err);
  std::ofstream(in.c_str()) << source;
  auto clang = llvm::sys::findProgramByName("clang-16");
  if (!clang) {
    *error = "clang-16 not found";
    return nullptr;
  }
  std::vector<std::string> args = {*clang, "-x", "cl", "-cl-std=CL1.2", "-target", "spir64-unknown-unknown",
                                   "-Xclang", "-finclude-default-header", "-O0", "-Xclang",
                                   "-disable-O0-optnone", "-g", "-emit-llvm", "-S", "-o", out.c_str()};
  std::istringstream opts(options);
  for (std::string w; opts >> w;) args.push_back(w);
  args.push_back(in.c_str());
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, err.str(), err.str()};
  int rc = llvm::sys::ExecuteAndWait(*clang, argRefs, std::nullopt, redirects);
  std::unique_ptr<llvm::Module> M;
  if (rc != 0) {
    std::ifstream e(err.c_str());
    std::stringstream ss;
    ss << e.rdbuf();
    *error = "clang failed: " + ss.str();
  } else {
    llvm::SMDiagnostic diag;
    M = llvm::parseIRFile(out, diag, ctx);
    if (!M) *error = "cannot parse IR: " + diag.getMessage().str();
  }
  llvm::sys::fs::remove(in);
  llvm::sys::fs::remove(out);
  llvm::sys::fs::remove(err);
  return M;
}

}  // namespace libsplit::test
