// What was last set on each device kernel (the drivers' kernels behind an
// app kernel), so that a launch sets only the arguments that changed: an
// iterative app sets its arguments once and launches many times, and each
// clSetKernelArg costs the driver's time on the app's critical path.
#pragma once

#include <CL/cl.h>

#include <cstddef>

namespace libsplit {

// Sets argument `index` of device kernel dk unless the same value (kind,
// size and bytes; null `value` for local memory) is known to be set there.
cl_int set_kernel_arg_cached(cl_kernel dk, cl_uint index, size_t size, const void* value);
cl_int set_kernel_arg_svm_cached(cl_kernel dk, cl_uint index, const void* pointer);
// The device kernel is released: forget what was set (its handle can be reused).
void forget_kernel_args(cl_kernel dk);
// A driver object that may be a kernel argument (buffer, image, pipe,
// sampler) is about to be released: a new object may get its handle, and a
// driver may have resolved the old one when the argument was set, so every
// argument holding it must be set again.
void forget_kernel_arg_object(const void* handle);
// Releases a driver memory object that may be a device kernel's argument.
void release_device_mem(cl_mem m);

}  // namespace libsplit
