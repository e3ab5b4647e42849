// The application's OpenCL build options, as libsplit-cc hands them to
// Clang: options that change how the program parses (-D, -U, -I,
// -cl-std=, the math flags that define macros, ...) are kept; options only
// an OpenCL driver understands (-cl-opt-disable, -Werror, -g, ...) are
// dropped, since they do not change the partition-ready rewrite.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace libsplit::cc {

// Splits one option string the way clBuildProgram options are written:
// whitespace separated, with "double" / 'single' quotes and backslash escapes.
std::vector<std::string> splitOptions(std::string_view text);

struct FilteredOptions {
  std::vector<std::string> clang;    // for the Clang invocation
  std::vector<std::string> ignored;  // dropped, for --verbose style reports
};

// options: each element may hold several options (it is split first).
FilteredOptions filterBuildOptions(const std::vector<std::string>& options);

}  // namespace libsplit::cc
