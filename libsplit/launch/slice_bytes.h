// The byte ranges a slice of a launch touches (Launch::slice_bytes), and
// the per-kernel facts and memo that spare their evaluation at every launch:
// a settled split asks for the same slices launch after launch.
#pragma once

#include "launch.h"

#include <utility>

namespace libsplit {

// Whether argument i's read and write regions load from an index buffer
// (their bytes then follow the index's contents: never memoized).
std::pair<bool, bool> through_index(cl_kernel k, const KernelSummary& ks, unsigned i);

}  // namespace libsplit
