// Developer/test tool around the region analysis, out of process so that
// OpenCL runtimes with their own LLVM (PoCL) never share a process with it.
//   region_tool [--regions] FILE.cl [clang options]   regions, readable
//   region_tool --summary FILE.cl [clang options]     ProgramSummary JSON
//   region_tool --trace FILE.cl [clang options]       instrumented program;
//       first lines "// TRACED <kernel> <param,param,...>" (or
//       "// UNTRACED <kernel>" for kernels left unchanged)
#include "ClToIR.h"
#include "RegionAnnotator.h"
#include "TraceReport.h"

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  int i = 1;
  std::string mode = "--regions";
  if (i < argc && std::string(argv[i]).rfind("--", 0) == 0) mode = argv[i++];
  if (i >= argc || (mode != "--regions" && mode != "--summary" && mode != "--trace")) {
    std::cerr << "usage: region_tool [--regions|--summary|--trace] FILE.cl [clang options]\n";
    return 2;
  }
  std::ifstream f(argv[i]);
  if (!f) {
    std::cerr << "cannot read " << argv[i] << "\n";
    return 2;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  std::vector<std::string> opts;
  std::string optText;
  for (int j = i + 1; j < argc; ++j) opts.push_back(argv[j]), optText += std::string(argv[j]) + " ";
  if (mode == "--trace")
    return libsplit::trace::print_traced_program(ss.str(), opts, "", std::cout, std::cerr) ? 0 : 1;
  llvm::LLVMContext ctx;
  std::string err;
  auto M = libsplit::test::compileCL(ss.str(), optText, ctx, &err);
  if (!M) {
    std::cerr << err << "\n";
    return 1;
  }
  if (mode == "--summary")
    std::cout << libsplit::to_json(libsplit::regionSummary(*M)) << "\n";
  else
    std::cout << libsplit::printRegions(*M);
  return 0;
}
