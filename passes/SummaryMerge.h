// One summary for a program analysed under several device macro sets (one
// per distinct set of predefined macros among the runtime's devices): what
// any device's compiled program may do. See passes/README.md ("Device
// macros") for why a union is sound in this runtime.
#pragma once

#include "libsplit/summary.h"

#include <vector>

namespace libsplit::cc {

// parts: one summary per macro set, non-empty. Per kernel and buffer
// argument: reads/writes/atomics OR, regions the union (unknown when any is
// unknown); uses_* OR; splittable AND. A kernel missing from a set, or whose
// signature differs between sets, is not splittable.
ProgramSummary mergeSummaries(const std::vector<ProgramSummary>& parts);

}  // namespace libsplit::cc
