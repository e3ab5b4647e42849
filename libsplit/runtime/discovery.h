// Enumerating the node's OpenCL devices through given entry points (the real
// loader's in the shim, the linked loader's in libsplit-info).
#pragma once

#include "device_place.h"
#include "device_set.h"

#include <CL/cl.h>

#include <string>
#include <vector>

namespace libsplit {

struct DiscoveredDevice {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  DeviceDesc desc;
  std::string version;  // CL_DEVICE_VERSION, whole
  DevicePlace place = DevicePlace::own_hardware;
};

struct DiscoveryApi {
  decltype(&clGetPlatformIDs) get_platforms;
  decltype(&clGetDeviceIDs) get_devices;
  decltype(&clGetDeviceInfo) get_device_info;
};

std::vector<DiscoveredDevice> discover_devices(const DiscoveryApi& api);

}  // namespace libsplit
