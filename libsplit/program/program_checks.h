// What a program's text and options allow, read without building it.
#pragma once

#include <CL/cl.h>

#include <string_view>

namespace libsplit {

// Whether a launch of p's kernels may have non-uniform work-groups on
// `device`: OpenCL C 2.0 or later, not -cl-uniform-work-group-size, and a
// device that supports them (CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, or
// any OpenCL 2.x device).
bool non_uniform_allowed(cl_device_id device, cl_program p);

// True when the source uses no query whose value changes when a launch is cut
// into offset sub-launches, and nothing with cross-work-group effects.
bool plain_split_safe(std::string_view source);

}  // namespace libsplit
