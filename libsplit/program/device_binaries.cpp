#include "device_binaries.h"

#include "binary_origins.h"
#include "device_binary_file.h"
#include "libsplit/cache_dir.h"
#include "real_api.h"
#include "runtime.h"

#include <fstream>
#include <iterator>

namespace libsplit {

std::string device_binaries_dir() { return cache_dir(runtime().controls.cache_dir) + "/device-binaries"; }

std::string device_binary_key(const std::string& source, const std::string& options,
                              const std::vector<cl_device_id>& devices) {
  std::vector<DeviceIdentity> identities;
  for (cl_device_id d : devices)
    identities.push_back(device_identity(d, real().clGetDeviceInfo, real().clGetPlatformInfo));
  return device_binary_key(source, options, identities);
}

bool has_device_binaries(const std::string& key) {
  return std::ifstream(device_binaries_dir() + "/" + key).good();
}

std::optional<std::vector<std::vector<unsigned char>>> load_device_binaries(const std::string& key,
                                                                            size_t devices) {
  std::ifstream in(device_binaries_dir() + "/" + key, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return decode_device_binaries(bytes, key, devices);
}

void store_device_binaries(const std::string& key, cl_program built, size_t devices) {
  auto bins = program_binaries(built, devices, real().clGetProgramInfo);
  if (!bins) {
    log_line(2, "device binaries not cached: the driver gave none, or a kernel name is too long for PoCL's cache");
    return;
  }
  std::string why;
  if (!write_private_file(device_binaries_dir(), key, encode_device_binaries(key, *bins), &why))
    log_line(1, "device binaries not cached: " + why);
}

cl_program program_from_device_binaries(unsigned slot, const std::vector<cl_device_id>& ids,
                                        const std::string& key, const std::string& options) {
  auto bins = load_device_binaries(key, ids.size());
  if (!bins) return nullptr;
  std::vector<size_t> lengths;
  std::vector<const unsigned char*> ptrs;
  for (auto& b : *bins) lengths.push_back(b.size()), ptrs.push_back(b.data());
  cl_int err = CL_SUCCESS;
  cl_program prog = real().clCreateProgramWithBinary(runtime().context(slot), cl_uint(ids.size()), ids.data(),
                                                     lengths.data(), ptrs.data(), nullptr, &err);
  if (prog && real().clBuildProgram(prog, cl_uint(ids.size()), ids.data(), options.c_str(), nullptr,
                                    nullptr) == CL_SUCCESS)
    return prog;
  if (prog) real().clReleaseProgram(prog);
  return nullptr;
}

}  // namespace libsplit
