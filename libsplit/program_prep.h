// Preparing an app program for execution on libsplit's devices: the
// partition-ready program from libsplit-cc (Compiled), the original source
// when it needs no rewrite (Plain), or the original run whole (Whole).
#pragma once

#include "objects.h"

#include <string_view>

namespace libsplit {

// Idempotent; called under the exec lock at each launch.
void prepare_program(cl_program p);

// Called after the app read a program's binaries (CL_PROGRAM_BINARIES): each
// one built from source is recorded (binary_origins.h) so that a program
// later created from it can be prepared from source again.
void remember_binaries(cl_program p, const unsigned char* const* binaries, size_t count);

// The kernel object for runtime device d (created on first use); null when
// the program has none there.
cl_kernel device_kernel(cl_kernel k, unsigned device, cl_int* err);

// True when the source uses no query whose value changes when a launch is cut
// into offset sub-launches, and nothing with cross-work-group effects.
bool plain_split_safe(std::string_view source);

}  // namespace libsplit
