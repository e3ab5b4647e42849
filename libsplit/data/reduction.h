// Reduction buffers (summary.h ReductionOp): a split launch gives every device
// a private copy of such a buffer. The first device's copy starts from the
// current contents, the others from the operation's identity, and after the
// launch the copies are combined element by element with the same operation.
// Integer arithmetic (wrapping for add), so the result is bit for bit the
// one-device result whatever the order of the updates.
#pragma once

#include "libsplit/summary.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace libsplit {

// True when every global buffer argument the kernel updates atomically is a
// reduction buffer (the kernel's global atomics allow a split).
bool atomics_are_reductions(const KernelSummary& k);

// One element (bits/8 bytes, little-endian as on every OpenCL device the
// shim splits over) holding the identity of op: 0 for add/or/xor/umax,
// all ones for and/umin, INT_MAX for min, INT_MIN for max.
std::vector<uint8_t> reduction_identity(ReductionOp op, unsigned bits);

// into[i] = op(into[i], copy[i]) for every whole element of `bytes` (a
// trailing partial element is left alone: no atomic can update it).
void combine_reduction(ReductionOp op, unsigned bits, uint8_t* into, const uint8_t* copy,
                       size_t bytes);

}  // namespace libsplit
