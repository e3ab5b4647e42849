// The one question the launch path asks of a program's preparation
// (program_prep.h): which executable serves these devices now. Asking may
// move the program's state on (adopt a finished preparation, start a
// platform slot's build that a probe or a split wants), but the launch path
// never builds or waits for a build itself: what is not ready runs whole.
#pragma once

#include "objects.h"

#include <vector>

namespace libsplit {

// At each launch (under the exec lock) from a queue whose device is runtime
// device `home`: the program's preparation brought up to date (see
// advance_preparation); false when it has no executable on libsplit's
// devices at all (the launch fails with CL_INVALID_PROGRAM_EXECUTABLE).
bool program_launchable(cl_program p, unsigned home);

// For a probe (under the exec lock): whether k's program is built for
// `device`'s platform. Platforms without a device of the app's context build
// their program when first wanted: this starts that build in the background
// (a probe is skipped meanwhile).
bool device_ready(cl_kernel k, unsigned device);
// Before a split over `devices` (under the exec lock): whether k's program
// is built for each one's platform. Never waits: a platform's program still
// missing starts building in the background (until it is ready the launch
// runs whole on the app's device); false for good when one failed.
bool devices_ready(cl_kernel k, const std::vector<unsigned>& devices);

// GPU `device` is being opened in the background now: k's program starts
// building there the moment it opens (lazy_slots.h: build_once_open).
void build_where_opening(cl_kernel k, unsigned device);

// The kernel object for runtime device d (created on first use); null when
// the program has none there.
cl_kernel device_kernel(cl_kernel k, unsigned device, cl_int* err);
// For a launch run whole on d: the kernel of the app's own source when the
// background job built it for d's platform (*original = true: the exact
// kernel the app would have run, without the hidden partition argument),
// else device_kernel().
cl_kernel whole_kernel(cl_kernel k, unsigned device, cl_int* err, bool* original);

// At enqueue: CL_INVALID_PROGRAM_EXECUTABLE (logged) when k's program has no
// executable on libsplit's runtime device `device` (where a launch that
// cannot be split runs), so that no launch is silently skipped.
cl_int check_executable(cl_kernel k, unsigned device);

}  // namespace libsplit
