// What `libsplit-cc --regions` and `libsplit-cc --trace` print.
#pragma once

#include "TraceRewriter.h"
#include "libsplit/summary.h"

#include <ostream>
#include <string>
#include <vector>

namespace libsplit::trace {

// Per kernel and buffer argument: the read and write regions, or unknown
// with the reason; then the share of buffer arguments with known regions
// (and how many of them depend on index buffers read at launch).
void print_region_report(const ProgramSummary& summary, std::ostream& out);

// print_traced_program: declared in TraceRewriter.h (included above).

}  // namespace libsplit::trace
