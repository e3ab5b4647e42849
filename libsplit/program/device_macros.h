// The macros each device's OpenCL C compiler predefines, derived from
// clGetDeviceInfo, in the SPEC form libsplit-cc takes (`--device-macros`,
// passes/DeviceMacros.h): `NAME=VALUE,...`. libsplit-cc analyses the program
// under exactly these macros, so a kernel whose accesses depend on
// `#ifdef cl_khr_fp16` or `__OPENCL_VERSION__` is analysed as the device
// compiles it.
#pragma once

#include <CL/cl.h>

#include <string>
#include <vector>

namespace libsplit {

// The possible macro sets of `device` compiling with the app's build options.
// Where the queries do not settle a macro, every choice is returned (one set
// each) and libsplit-cc analyses all of them (union of regions): without
// -cl-std the language version is the highest 1.x the device reports or
// its newest (drivers differ: PoCL compiles OpenCL C 3.0 by default), and
// FP_FAST_FMA/FP_FAST_FMAF/FP_FAST_FMA_HALF are a speed hint no query gives.
std::vector<std::string> device_macro_sets(cl_device_id device, const std::string& build_options);

// The distinct sets over several devices (sorted, deduplicated).
std::vector<std::string> device_macro_sets(const std::vector<cl_device_id>& devices,
                                           const std::string& build_options);

}  // namespace libsplit
