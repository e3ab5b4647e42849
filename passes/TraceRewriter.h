// Tracing instrumentation (the region oracle): rewrites an OpenCL C program
// so that every kernel records which bytes of each buffer argument it really
// reads and writes, in bitmaps (1 bit per byte) passed as extra arguments.
//
// Every kernel gets, after the user's arguments: for each traced pointer
// parameter p (in parameter order) `__global uint* __ls_r_p, __global uint*
// __ls_w_p`, then `ulong4 __ls_slice` = (dim, first_group, group_count, 0):
// only work-items whose get_group_id(dim) lies in [first, first+count) record,
// so one full-NDRange run gives the accesses of one slice. A bitmap for a
// buffer of B bytes needs ceil(B/32) uints, zero-initialised.
//
// Traced: `p[i]` (read, write, compound = both; `&p[i]` passed to an atomic
// builtin = both), `*p`,
// vloadN(i, p) / vstoreN(v, i, p), atomic_*(p, ..), the global side of
// async_work_group_(strided_)copy,
// where p is a __global/__constant pointer parameter never reassigned in the
// kernel. Not traced (so the oracle is weaker, never wrong there): accesses
// inside helper functions (`&p[i]` passed to one), through derived
// pointers, member/component accesses, macro-expanded subscripts.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace libsplit::trace {

struct TracedKernel {
  std::string name;
  unsigned user_args = 0;
  bool instrumented = true;             // false: signature unchanged (see notes)
  std::vector<unsigned> traced_params;  // user argument indices, order of the shadow pairs
  std::vector<std::string> notes;       // what was left untraced and why
};

struct TraceResult {
  bool ok = false;
  std::string error;   // clang diagnostics when !ok
  std::string source;  // the instrumented program
  std::vector<TracedKernel> kernels;
};

// clang_args: build options (-D, -I, -cl-std=...). resource_dir: Clang's
// resource directory (opencl-c.h). device_macros: a `--device-macros` SPEC
// (DeviceMacros.h): the program is preprocessed with that device's
// predefined macros, as the analysis does; empty: Clang's own.
TraceResult instrument_for_tracing(const std::string& source, const std::vector<std::string>& clang_args,
                                   const std::string& resource_dir = "/usr/lib/llvm-16/lib/clang/16",
                                   const std::string& device_macros = "");

// The tracing-instrumented program (implemented in TraceRewriter.cpp, with
// Clang), preceded by
// "// TRACED <kernel> <param,...>" / "// UNTRACED <kernel>" lines. False
// (message on err) when it does not compile.
bool print_traced_program(const std::string& source, const std::vector<std::string>& build_options,
                          const std::string& resource_dir, std::ostream& out, std::ostream& err,
                          const std::string& device_macros = "");

}  // namespace libsplit::trace
