// libsplit-build: builds one OpenCL C source for some devices of one
// platform and stores the device binaries in libsplit's cache, in a process
// of its own. The shim runs it for its background builds (the partition-ready
// program, other platforms' builds): a driver build inside the app's process
// cannot be stopped, and one still running when the app exits tears down
// under the app's static destructors (CLBlast crashed so); this process is
// simply killed. The shim then loads the binaries, which takes a fraction of
// a build. An ordinary OpenCL program: it must run without the shim.
//
//   libsplit-build --driver LIB --device D [--device D ...] --dir DIR
//                  [--options OPTS] [--delay-ms N] SOURCE
//
// LIB is the driver's shared library (the platform whose functions live in
// it: device_binary_file.h driver_library), D indexes its
// clGetDeviceIDs(CL_DEVICE_TYPE_ALL). The binaries go to DIR/<key> (device_binary_file.h), the key
// printed on stdout. Exit status: 0 stored, 3 the build failed (its log on
// stderr), 4 the program's binaries cannot be cached, 2 anything else.
// --delay-ms waits before building (tests: a build still running at exit).
#include "binary_origins.h"
#include "device_binary_file.h"
#include "libsplit/cache_dir.h"

#include <CL/cl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

using namespace libsplit;

namespace {

int fail(int status, const std::string& why) {
  std::cerr << "libsplit-build: " << why << "\n";
  return status;
}

std::string build_log(cl_program prog, cl_device_id d) {
  size_t n = 0;
  clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  return log.substr(0, log.find('\0'));
}

}  // namespace

int main(int argc, char** argv) {
  long delay_ms = 0;
  std::string driver;
  std::vector<long> device_indices;
  std::string dir, options, source_path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--driver" && has_value) driver = argv[++i];
    else if (arg == "--device" && has_value) device_indices.push_back(std::strtol(argv[++i], nullptr, 10));
    else if (arg == "--dir" && has_value) dir = argv[++i];
    else if (arg == "--options" && has_value) options = argv[++i];
    else if (arg == "--delay-ms" && has_value) delay_ms = std::strtol(argv[++i], nullptr, 10);
    else if (!arg.empty() && arg[0] != '-' && source_path.empty()) source_path = arg;
    else return fail(2, "unexpected argument '" + arg + "'");
  }
  if (driver.empty() || device_indices.empty() || dir.empty() || source_path.empty())
    return fail(2, "usage: libsplit-build --driver LIB --device D [--device D ...] --dir DIR "
                   "[--options OPTS] [--delay-ms N] SOURCE");
  std::ifstream in(source_path, std::ios::binary);
  if (!in) return fail(2, "cannot read " + source_path);
  const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  cl_uint np = 0;
  clGetPlatformIDs(0, nullptr, &np);
  std::vector<cl_platform_id> platforms(np);
  if (np) clGetPlatformIDs(np, platforms.data(), nullptr);
  cl_platform_id platform = nullptr;
  for (cl_platform_id p : platforms)
    if (driver_library(p) == driver) platform = p;
  if (!platform) {
    const char* icds = std::getenv("OCL_ICD_FILENAMES");
    return fail(2, "no platform of " + driver + " among the loader's " + std::to_string(np) +
                       " (OCL_ICD_FILENAMES=" + (icds ? icds : "(unset)") + ")");
  }
  cl_uint nd = 0;
  clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
  std::vector<cl_device_id> all(nd), devices;
  if (nd) clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, nd, all.data(), nullptr);
  for (long d : device_indices) {
    if (d < 0 || d >= long(nd)) return fail(2, "no device " + std::to_string(d));
    devices.push_back(all[size_t(d)]);
  }
  if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));

  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, cl_uint(devices.size()), devices.data(), nullptr, nullptr, &err);
  if (!ctx) return fail(2, "clCreateContext -> " + std::to_string(err));
  const char* text = source.c_str();
  cl_program prog = clCreateProgramWithSource(ctx, 1, &text, nullptr, &err);
  if (!prog) return fail(2, "clCreateProgramWithSource -> " + std::to_string(err));
  if (clBuildProgram(prog, cl_uint(devices.size()), devices.data(), options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    std::cerr << build_log(prog, devices[0]);
    return 3;
  }
  auto binaries = program_binaries(prog, devices.size(), clGetProgramInfo);
  if (!binaries) return fail(4, "no cacheable binaries");
  std::vector<DeviceIdentity> identities;
  for (cl_device_id d : devices) identities.push_back(device_identity(d, clGetDeviceInfo, clGetPlatformInfo));
  const std::string key = device_binary_key(source, options, identities);
  std::string why;
  if (!write_private_file(dir, key, encode_device_binaries(key, *binaries), &why)) return fail(2, why);
  std::cout << key << "\n";
  clReleaseProgram(prog);
  clReleaseContext(ctx);
  return 0;
}
