// One separately compiled unit of a linked program, as the program object
// keeps it (program_source.h makes one source of several).
#pragma once

#include <string>

namespace libsplit {

struct CompileUnit {
  std::string source;  // self-contained (program_source.h inline_includes)
  std::string options;
};

}  // namespace libsplit
