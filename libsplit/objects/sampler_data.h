// The real sampler a launch on a runtime device passes for an app sampler.
#pragma once

#include "objects.h"

namespace libsplit {

// Made on first use in the device's internal context; called under the exec lock.
cl_sampler device_sampler(cl_sampler s, unsigned device, cl_int* err);

}  // namespace libsplit
