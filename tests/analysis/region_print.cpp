// Developer tool: prints the regions of every kernel of an OpenCL C file.
//   region_print FILE.cl [clang options...]
#include "ClToIR.h"
#include "RegionAnnotator.h"

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: region_print FILE.cl [options]\n";
    return 2;
  }
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string opts;
  for (int i = 2; i < argc; ++i) opts += std::string(argv[i]) + " ";
  llvm::LLVMContext ctx;
  std::string err;
  auto M = libsplit::test::compileCL(ss.str(), opts, ctx, &err);
  if (!M) {
    std::cerr << err << "\n";
    return 1;
  }
  std::cout << libsplit::printRegions(*M);
  return 0;
}
