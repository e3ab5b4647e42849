#include "discovery.h"

#include <string>

namespace libsplit {

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
      size_t n = 0;
      api.get_device_info(ids[d], CL_DEVICE_NAME, 0, nullptr, &n);
      std::string name(n, '\0');
      api.get_device_info(ids[d], CL_DEVICE_NAME, n, name.data(), nullptr);
      while (!name.empty() && name.back() == '\0') name.pop_back();
      dev.desc.name = name;
      cl_device_type type = 0;
      api.get_device_info(ids[d], CL_DEVICE_TYPE, sizeof type, &type, nullptr);
      dev.desc.gpu = type & CL_DEVICE_TYPE_GPU;
      dev.desc.cpu = type & CL_DEVICE_TYPE_CPU;
      dev.desc.accelerator = type & CL_DEVICE_TYPE_ACCELERATOR;
      out.push_back(dev);
    }
  }
  return out;
}

}  // namespace libsplit
