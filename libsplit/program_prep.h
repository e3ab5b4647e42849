// Preparing an app program for execution on libsplit's devices: the
// partition-ready program from libsplit-cc (Compiled), the original source
// when it needs no rewrite (Plain), or the original run whole (Whole).
#pragma once

#include "objects.h"

#include <string_view>

namespace libsplit {

// Idempotent; called under the exec lock at each launch.
void prepare_program(cl_program p);

// The kernel object for runtime device d (created on first use); null when
// the program has none there.
cl_kernel device_kernel(cl_kernel k, unsigned device, cl_int* err);

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
