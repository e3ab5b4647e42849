#include "app_binaries.h"

#include "binary_origins.h"
#include "real_api.h"
#include "runtime.h"

namespace libsplit {

void remember_binaries(cl_program p, const unsigned char* const* binaries, size_t count) {
  std::string source = p->source, options = p->options;
  if (!p->from_source) {
    // A program restored from a binary hands out binaries of the same source.
    std::string why;
    auto origin = find_binary_origin(binary_origins_dir(runtime().controls.cache_dir), p->binaries, &why);
    if (!origin) return;
    source = std::move(origin->source);
    options = std::move(origin->options);
  }
  std::vector<size_t> sizes(count, 0);
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_BINARY_SIZES, count * sizeof(size_t),
                              sizes.data(), nullptr) != CL_SUCCESS)
    return;
  // Only executables: a compiled object or library binary was made with
  // clCompileProgram's options, not the ones recorded here.
  std::vector<cl_device_id> devices(count, nullptr);
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_DEVICES, count * sizeof(cl_device_id),
                              devices.data(), nullptr) != CL_SUCCESS)
    return;
  std::string dir = binary_origins_dir(runtime().controls.cache_dir);
  for (size_t i = 0; i < count; ++i) {
    if (!binaries[i] || !sizes[i] || !devices[i]) continue;
    cl_program_binary_type type = CL_PROGRAM_BINARY_TYPE_NONE;
    if (real().clGetProgramBuildInfo(p->native, devices[i], CL_PROGRAM_BINARY_TYPE, sizeof type, &type,
                                     nullptr) != CL_SUCCESS ||
        type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
      continue;
    std::string why;
    if (!record_binary_origin(dir, binaries[i], sizes[i], {source, options}, &why))
      log_line(1, "binary handed out but not recorded: " + why);
  }
}

Binaries native_binaries(cl_program p) {
  Binaries out;
  cl_uint n = 0;
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, nullptr) != CL_SUCCESS || !n)
    return out;
  std::vector<cl_device_id> ids(n);
  std::vector<size_t> sizes(n, 0);
  real().clGetProgramInfo(p->native, CL_PROGRAM_DEVICES, n * sizeof(cl_device_id), ids.data(), nullptr);
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_BINARY_SIZES, n * sizeof(size_t), sizes.data(),
                              nullptr) != CL_SUCCESS)
    return out;
  std::vector<std::vector<unsigned char>> bins(n);
  std::vector<unsigned char*> ptrs(n);
  for (cl_uint i = 0; i < n; ++i) bins[i].resize(sizes[i]), ptrs[i] = bins[i].data();
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_BINARIES, n * sizeof(unsigned char*), ptrs.data(),
                              nullptr) != CL_SUCCESS)
    return out;
  for (cl_uint i = 0; i < n; ++i)
    if (sizes[i]) out.devices.push_back(ids[i]), out.data.push_back(std::move(bins[i]));
  return out;
}

}  // namespace libsplit
