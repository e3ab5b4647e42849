#include "device_place.h"

namespace libsplit {

bool is_pocl_remote(std::string_view device_version) {
  // PoCL appends "HSTR: <build hash string>" per driver; the remote
  // driver's names itself (pocl/lib/CL/devices/remote, v5.0 and later).
  return device_version.find("HSTR: pocl-remote:") != std::string_view::npos;
}

DevicePlace device_place(cl_device_type type, std::string_view device_version) {
  // Checked before the type: a remote CPU device is CL_DEVICE_TYPE_CPU like
  // the server's, but runs on the server's cores, not on ours.
  if (is_pocl_remote(device_version)) return DevicePlace::remote;
  if (type & CL_DEVICE_TYPE_CPU) return DevicePlace::host_cores;
  return DevicePlace::own_hardware;
}

const char* place_name(DevicePlace place) {
  switch (place) {
    case DevicePlace::host_cores: return "host cores";
    case DevicePlace::remote: return "remote";
    default: return "own hardware";
  }
}

}  // namespace libsplit
