// Per-argument access facts of OpenCL kernels in LLVM IR: does a kernel read,
// write, or atomically update the memory behind each pointer argument?
//
// The walk follows the pointer through GEPs, casts, phis and selects and into
// the callees that receive it (by parameter). OpenCL builtins that take
// pointers are known by name (vload/vstore, atomics, async copies, ...).
// Whenever the pointer escapes (stored to memory, converted to an integer,
// passed to an unknown function) the answer is conservative: read and write.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class Function;
class Module;
}  // namespace llvm

namespace libsplit {

struct ArgAccess {
  bool reads = false;
  bool writes = false;
  bool atomics = false;
  bool escapes = false;  // the answer is conservative: the pointer got away
};

// One entry per formal parameter of F (non-pointers stay all-false).
std::vector<ArgAccess> analyzeArgAccess(const llvm::Function& F);

// The OpenCL builtin name of an Itanium-mangled function name
// ("_Z6vload4mPU3AS1Kf" -> "vload4"); the name itself when not mangled.
std::string_view openclBuiltinName(std::string_view mangled);

}  // namespace libsplit
