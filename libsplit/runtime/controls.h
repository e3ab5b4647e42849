// libsplit's environment controls, generated from controls.def.
#pragma once

#include <string>

namespace libsplit {

struct Controls {
#define LIBSPLIT_CONTROL_bool bool
#define LIBSPLIT_CONTROL_int int
#define LIBSPLIT_CONTROL_string std::string
#define LIBSPLIT_CONTROL(env, field, type, dflt, doc) LIBSPLIT_CONTROL_##type field = dflt;
#include "controls.def"
#undef LIBSPLIT_CONTROL
};

// Reads the LIBSPLIT_* variables through `getenv` (injectable for tests).
// Malformed values keep the default and add a line to *warnings.
Controls read_controls(const char* (*getenv_fn)(const char*), std::string* warnings = nullptr);

// One paragraph per control: name, type, default, documentation.
std::string controls_documentation();

}  // namespace libsplit
