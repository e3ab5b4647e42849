// Per-argument access facts of OpenCL kernels in LLVM IR: does a kernel read,
// write, or atomically update the memory behind each pointer argument?
//
// The walk follows the pointer through GEPs, casts, phis and selects and into
// the callees that receive it (by parameter). OpenCL builtins that take
// pointers are known by name (vload/vstore, atomics, async copies, ...).
// Whenever the pointer escapes (stored to memory, converted to an integer,
// passed to an unknown function) the answer is conservative: read and write.
//
// Atomics are classified too: a pointer whose every atomic is the same
// commutative reduction update with its result unused (summary.h ReductionOp),
// and which is never loaded or stored otherwise, is a reduction buffer.
#pragma once

#include "libsplit/summary.h"

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
  bool plain = false;    // loaded or stored other than by an atomic (or escaped)
  // The widest unit, in bytes (a power of two), that every write through the
  // pointer covers whole and aligned: 4 for float or int stores, 8 for
  // double/long, 1 where bytes are stored or the pointer escapes; 0 while no
  // write is seen. A merge of device copies compares and copies whole units,
  // so it never mixes two writers' bytes into a value nobody wrote.
  unsigned store_unit = 0;
  // The reduction update the atomics seen so far perform (None: none seen).
  ReductionOp reduction = ReductionOp::None;
  unsigned reduction_bits = 0;
  // Why some atomic is not such an update ("" when every one is).
  std::string not_reduction;

  bool isReductionBuffer() const {
    return atomics && !plain && !escapes && reduction != ReductionOp::None && not_reduction.empty();
  }
  // Why not, for messages ("" for a reduction buffer or a pointer without atomics).
  std::string whyNotReduction() const;
};

// One entry per formal parameter of F (non-pointers stay all-false).
std::vector<ArgAccess> analyzeArgAccess(const llvm::Function& F);

// The OpenCL builtin name of an Itanium-mangled function name
// ("_Z6vload4mPU3AS1Kf" -> "vload4"); the name itself when not mangled.
std::string_view openclBuiltinName(std::string_view mangled);

}  // namespace libsplit
