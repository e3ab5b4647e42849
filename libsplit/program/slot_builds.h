// Building one app program on libsplit's platform slots (one internal
// context each, runtime.h): from source (through cached device binaries when
// the same source was built before), from binaries or IL, or by compiling
// and linking its units again. What to build is prepared_program.h's choice.
#pragma once

#include "objects.h"

#include <functional>
#include <string>
#include <vector>

namespace libsplit {

// Programs built per platform slot (one reference each).
struct Built {
  std::vector<cl_program> programs;  // by platform slot, null where it failed
  bool all = true;
  std::string why;
};

// Binaries for some devices (the app's, or those of its own build).
struct Binaries {
  std::vector<cl_device_id> devices;
  std::vector<std::vector<unsigned char>> data;
};

// Builds `source` (through cached device binaries when it was built before),
// else `binaries`, else p's IL on platform slot s; null (`why` set when the
// build failed) where it cannot. A source build's binaries are stored for
// the next run, the app's own source (`app_source`) only where reading them
// is cheap (not on CPU drivers: see the .cpp).
cl_program build_slot(cl_program p, unsigned s, const std::string* source, const std::string& options,
                      const Binaries* binaries, std::string* why, bool app_source = false);

// build_slot on every platform slot (only the slots of the app's context
// with `app_slots_only`); `built(slot, program)` hears of each slot as soon
// as it is ready, and returns true where it took the build's reference over
// (that slot is then null in the result). Slots where `ready` holds a
// program take it as built (one more reference). `app_source`: as build_slot's.
Built build_per_slot(cl_program p, const std::string* source, const std::string& options,
                     const Binaries* binaries = nullptr,
                     const std::function<bool(unsigned, cl_program)>& built = nullptr,
                     const std::vector<cl_program>* ready = nullptr, bool app_slots_only = false,
                     bool app_source = false);

// A linked program whose units are known: each unit compiled and all of them
// linked on every platform slot, as the app did on its own devices.
Built link_per_slot(cl_program p);

// Creates the program's kernels once and drops them (see the .cpp: moves
// the driver's loading of the program off the app's path).
void load_kernels(cl_program prog);

// The devices of platform slot `slot`.
std::vector<cl_device_id> slot_devices(unsigned slot);

// Whether the app's build of p made an executable for every device of `ids`
// (PoCL reports CL_BUILD_SUCCESS even for the context's devices the app did
// not build for: the app's device list is what counts).
bool built_for(cl_program p, const std::vector<cl_device_id>& ids);

// Which platform slots hold a device of the app's context.
std::vector<bool> app_slots(cl_program p);

// Releases every non-null program and empties the vector.
void release_all(std::vector<cl_program>& programs);

}  // namespace libsplit
