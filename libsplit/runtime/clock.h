// The host clocks libsplit times things with.
#pragma once

#include <CL/cl.h>

namespace libsplit {

// Host clock in nanoseconds (profiling times of our events).
cl_ulong now_ns();
// Monotonic, in steps of a few ms; for thresholds checked at every launch.
cl_ulong now_coarse_ns();

}  // namespace libsplit
