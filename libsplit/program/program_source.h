// Self-contained program sources. libsplit builds the app's programs again
// on its own devices, later than the app did (at its build, link or first
// launch); by then the app may have deleted its -I directories or released
// the header programs it compiled with. So what the compiler read is captured
// when the app compiles: every #include that resolves is replaced by the
// header's text.
#pragma once

#include "compile_unit.h"

#include <string>
#include <vector>

namespace libsplit {

struct EmbeddedHeader {
  std::string name;  // as given in header_include_names
  std::string text;
};

// `source` with each #include that resolves replaced by the header's text,
// recursively: embedded headers by name first, then (quoted includes) the
// including header's own directory, then the -I directories of `options`
// (relative ones against the current directory). Includes that do not
// resolve stay as they are (system headers, lines in dead #if branches). A
// header marked `#pragma once` is inlined once.
std::string inline_includes(const std::string& source, const std::string& options,
                            const std::vector<EmbeddedHeader>& embedded);

// One source equivalent to compiling each (source, options) unit separately
// and linking them: each unit wrapped in #define/#undef for its -D/-U options,
// and the macros it #defines (other than include guards) #undef'd after it.
// The units' other compile options (-cl-std, -cl-*-math, ...) are added to
// *options once each. Units that collide (two static functions of one name)
// make a source that does not build; the caller then links units instead.
std::string single_source(const std::vector<CompileUnit>& units, std::string* options);

// The link options that are also build options (drops -create-library and
// -enable-link-options).
std::string link_options_for_build(const std::string& link_options);

// Splits build options into words (whitespace separated, "..." and '...' kept together).
std::vector<std::string> split_options(const std::string& options);

}  // namespace libsplit
