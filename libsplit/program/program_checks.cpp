#include "program_checks.h"

#include "objects.h"
#include "real_api.h"

#include <string>

namespace libsplit {

bool non_uniform_allowed(cl_device_id device, cl_program p) {
  std::string options = p->options + " " + p->link_options;
  for (const CompileUnit& u : p->units) options += " " + u.options;
  if (options.find("-cl-uniform-work-group-size") != std::string::npos) return false;
  if (options.find("-cl-std=CL2") == std::string::npos && options.find("-cl-std=CL3") == std::string::npos)
    return false;
  cl_bool support = CL_FALSE;
  if (real().clGetDeviceInfo(device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof support,
                             &support, nullptr) == CL_SUCCESS)
    return support == CL_TRUE;
  char version[64] = {};
  real().clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof version - 1, version, nullptr);
  return std::string_view(version).rfind("OpenCL 2.", 0) == 0;
}

bool plain_split_safe(std::string_view source) {
  for (const char* word : {"get_group_id", "get_num_groups", "get_global_size", "get_global_offset",
                           "get_global_linear_id", "get_enqueued", "atomic", "atom_", "image",
                           "pipe", "sampler", "enqueue_kernel", "__builtin"})
    if (source.find(word) != std::string_view::npos) return false;
  return true;
}

}  // namespace libsplit
