// Driver builds of libsplit's own programs out of the app's process: the
// source goes to libsplit-build (child_process.h), which builds it for the
// same devices and stores their binaries in the device-binaries cache; the
// shim then loads them (device_binaries.h). A build inside the app's process
// cannot be stopped, and one still running at the app's exit tore the driver
// down under the app's static destructors (CLBlast, 1024 x 1024, cold caches:
// SIGSEGV); a helper is killed at exit instead.
#pragma once

#include <CL/cl.h>

#include <string>
#include <vector>

namespace libsplit {

struct HelperBuild {
  enum Result {
    Stored,       // the binaries are in the cache under the slot's key
    Failed,       // the driver refused the source: `log` says why
    Unavailable,  // no helper, killed (the app ended), or it could not store
  } result = Unavailable;
  std::string log;
};

// Builds `source` with `options` for devices `ids` of platform slot `slot`.
HelperBuild build_in_helper(unsigned slot, const std::vector<cl_device_id>& ids, const std::string& source,
                            const std::string& options);

}  // namespace libsplit
