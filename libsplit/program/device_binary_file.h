// The file format of libsplit's device-binaries cache, shared by the shim
// (device_binaries.h) and libsplit-build, which fills the cache out of
// process. Plain values: each side asks its own OpenCL entry points for the
// devices' identities.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace libsplit {

using DeviceBinaries = std::vector<std::vector<unsigned char>>;

// The shared library (a resolved path) of the driver behind platform p: an
// ICD platform object starts with its driver's dispatch table, whose entries
// are the driver's functions. Empty when unknown. Names a platform across
// processes whatever each loader's order or configuration.
std::string driver_library(cl_platform_id p);

// What names a device's compiler: name, driver version, platform version.
struct DeviceIdentity {
  std::string name, driver, platform_version;
};

// The identity of device d through the given entry points (the shim's real
// ones, or the loader's in libsplit-build): the same bytes on both sides.
using GetDeviceInfoFn = cl_int (*)(cl_device_id, cl_device_info, size_t, void*, size_t*);
using GetPlatformInfoFn = cl_int (*)(cl_platform_id, cl_platform_info, size_t, void*, size_t*);
DeviceIdentity device_identity(cl_device_id d, GetDeviceInfoFn device_info, GetPlatformInfoFn platform_info);

// The binaries of a built program for its `devices` devices, through the
// given clGetProgramInfo; nullopt where the driver gives none for a device
// or a kernel name is too long to cache (has_uncacheable_kernel_name).
using GetProgramInfoFn = cl_int (*)(cl_program, cl_program_info, size_t, void*, size_t*);
std::optional<DeviceBinaries> program_binaries(cl_program built, size_t devices, GetProgramInfoFn program_info);

// SHA-256 of the source, the build options and each device's identity.
std::string device_binary_key(const std::string& source, const std::string& options,
                              const std::vector<DeviceIdentity>& devices);

// The file's bytes: magic, key, count and sizes, then the binaries.
std::string encode_device_binaries(const std::string& key, const DeviceBinaries& binaries);
// nullopt unless `bytes` is such a file for `key` with `devices` binaries.
std::optional<DeviceBinaries> decode_device_binaries(const std::string& bytes, const std::string& key,
                                                     size_t devices);

// PoCL (3.1) builds the binaries of a program on demand, naming a file after
// each kernel; past the file-name limit its final link fails and the process
// aborts (CTS test_compiler kernel_name_size, 256 characters). Natively nobody
// asks, so libsplit does not either: programs with a kernel name this long
// are not cached. `names`: CL_PROGRAM_KERNEL_NAMES (';'-separated).
bool has_uncacheable_kernel_name(std::string_view names);

}  // namespace libsplit
