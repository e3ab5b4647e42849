// What `libsplit-cc --regions` and `libsplit-cc --trace` print.
#pragma once

#include "libsplit/summary.h"

#include <ostream>
#include <string>
#include <vector>

namespace libsplit::trace {

// Per kernel and buffer argument: the read and write regions, or unknown
// with the reason; then the share of buffer arguments with known regions.
void print_region_report(const ProgramSummary& summary, std::ostream& out);

// The tracing-instrumented program (see TraceRewriter.h; implemented in
// TraceRewriter.cpp, which needs Clang), preceded by
// "// TRACED <kernel> <param,...>" / "// UNTRACED <kernel>" lines. False
// (message on err) when it does not compile.
bool print_traced_program(const std::string& source, const std::vector<std::string>& build_options,
                          const std::string& resource_dir, std::ostream& out, std::ostream& err);

}  // namespace libsplit::trace
