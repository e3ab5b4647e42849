// The binaries of the app's own program: those it reads back, recorded with
// their source (binary_origins.h) so that a program later created from them
// can be prepared from source again; those of its own build, the last resort
// of preparation (its devices then run the program whole).
#pragma once

#include "objects.h"
#include "slot_builds.h"

#include <cstddef>

namespace libsplit {

// Called after the app read a program's binaries (CL_PROGRAM_BINARIES): each
// one built from source is recorded (binary_origins.h) so that a program
// later created from it can be prepared from source again.
void remember_binaries(cl_program p, const unsigned char* const* binaries, size_t count);

// The executable the app's own build made, as binaries for the app's devices
// (the last resort: those devices run the program whole).
Binaries native_binaries(cl_program p);

}  // namespace libsplit
