#include "discovery.h"

#include <string>

namespace libsplit {

namespace {

// A string answer of any length (a PoCL-Remote device's CL_DEVICE_VERSION
// runs past 64 characters: a fixed buffer got CL_INVALID_VALUE and nothing).
std::string info_string(const DiscoveryApi& api, cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (api.get_device_info(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string text(n, '\0');
  if (api.get_device_info(d, what, n, text.data(), nullptr) != CL_SUCCESS) return {};
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

}  // namespace

std::vector<DiscoveredDevice> discover_devices(const DiscoveryApi& api) {
  std::vector<DiscoveredDevice> out;
  cl_uint np = 0;
  if (api.get_platforms(0, nullptr, &np) != CL_SUCCESS || np == 0) return out;
  std::vector<cl_platform_id> platforms(np);
  api.get_platforms(np, platforms.data(), nullptr);
  for (unsigned p = 0; p < np; ++p) {
    cl_uint nd = 0;
    if (api.get_devices(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS) continue;
    std::vector<cl_device_id> ids(nd);
    api.get_devices(platforms[p], CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr);
    for (unsigned d = 0; d < nd; ++d) {
      DiscoveredDevice dev;
      dev.platform = platforms[p];
      dev.id = ids[d];
      dev.desc.platform = p;
      dev.desc.index = d;
      dev.desc.name = info_string(api, ids[d], CL_DEVICE_NAME);
      dev.version = info_string(api, ids[d], CL_DEVICE_VERSION);
      cl_device_type type = 0;
      api.get_device_info(ids[d], CL_DEVICE_TYPE, sizeof type, &type, nullptr);
      dev.desc.gpu = type & CL_DEVICE_TYPE_GPU;
      dev.desc.cpu = type & CL_DEVICE_TYPE_CPU;
      dev.desc.accelerator = type & CL_DEVICE_TYPE_ACCELERATOR;
      dev.place = device_place(type, dev.version);
      out.push_back(dev);
    }
  }
  return out;
}

}  // namespace libsplit
