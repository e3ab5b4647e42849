// Where a device's work runs, for the scheduler: on the host's own cores
// (which every such device shares), on hardware of its own (a GPU), or on
// another host behind PoCL-Remote (issue 26). Pure: fed the strings the
// driver reports, so that the decision is unit-tested without a device.
#pragma once

#include <CL/cl.h>

#include <string_view>

namespace libsplit {

enum class DevicePlace { own_hardware, host_cores, remote };

// True when CL_DEVICE_VERSION names PoCL's remote driver ("... HSTR:
// pocl-remote: <server device>"): the device mirrors a server's device, so
// its CL_DEVICE_TYPE says what the server has, not where it runs.
bool is_pocl_remote(std::string_view device_version);

// type: CL_DEVICE_TYPE; device_version: CL_DEVICE_VERSION.
DevicePlace device_place(cl_device_type type, std::string_view device_version);

// "own hardware", "host cores", "remote": for the log.
const char* place_name(DevicePlace place);

}  // namespace libsplit
