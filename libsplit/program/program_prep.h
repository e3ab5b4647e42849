// Preparing an app program for execution on libsplit's devices: the
// partition-ready program from libsplit-cc (Compiled), the original source
// when it needs no rewrite (Plain), or the original run whole (Whole);
// meanwhile (Preparing) launches run whole on the original source.
#pragma once

#include "objects.h"

#include <string_view>

namespace libsplit {

// After a successful app build (under the exec lock): source programs are
// prepared by a background job (LIBSPLIT_SYNC_PREPARE=1: at once), others at
// their first launch.
void start_preparation(cl_program p);

// The app is about to exit (process_exit.cpp): background preparations stop
// at their next step and the process waits for the step under way (bounded).
void before_exit();

// Called under the exec lock at each launch from a queue whose device is
// runtime device `home`: adopts a finished background preparation, or waits
// until the program can at least run whole on `home`, or prepares at once.
void prepare_program(cl_program p, unsigned home);

// Called after the app read a program's binaries (CL_PROGRAM_BINARIES): each
// one built from source is recorded (binary_origins.h) so that a program
// later created from it can be prepared from source again.
void remember_binaries(cl_program p, const unsigned char* const* binaries, size_t count);

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

// Whether a launch of p's kernels may have non-uniform work-groups on
// `device`: OpenCL C 2.0 or later, not -cl-uniform-work-group-size, and a
// device that supports them (CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, or
// any OpenCL 2.x device).
bool non_uniform_allowed(cl_device_id device, cl_program p);

// True when the source uses no query whose value changes when a launch is cut
// into offset sub-launches, and nothing with cross-work-group effects.
bool plain_split_safe(std::string_view source);

}  // namespace libsplit
