// Which devices libsplit splits over: the LIBSPLIT_DEVICES syntax, as a pure
// function over a description of the node's devices (unit-tested).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace libsplit {

struct DeviceDesc {
  unsigned platform = 0;  // index in clGetPlatformIDs order
  unsigned index = 0;     // index in clGetDeviceIDs(ALL) order of that platform
  std::string name;
  bool gpu = false, cpu = false, accelerator = false;
};

struct DeviceSelection {
  std::vector<unsigned> chosen;      // indices into the description list, in its order
  std::vector<std::string> reasons;  // per description: why chosen or not
  std::string error;                 // non-empty: the spec was malformed (nothing chosen)
};

// spec: empty or "all" = every device; otherwise a comma list of terms, a
// device is chosen when any term matches it:
//   P:D     platform P, device D (either may be '*')
//   type:gpu|cpu|accelerator|all
//   name:<substring>  (case-insensitive)
DeviceSelection select_devices(std::string_view spec, const std::vector<DeviceDesc>& all);

}  // namespace libsplit
