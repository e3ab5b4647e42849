// Helpers shared by the C++ test apps (OpenCL C++ bindings, exceptions on).
#pragma once

#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "app_common.h"

// The first device of the first platform, like ordinary programs pick it.
inline cl::Device first_device() {
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  std::vector<cl::Device> devices;
  platforms.at(0).getDevices(CL_DEVICE_TYPE_ALL, &devices);
  return devices.at(0);
}

template <class T>
void dump(const char* name, const std::vector<T>& v) {
  app_dump(name, v.data(), v.size() * sizeof(T));
}

// Runs the app body; any OpenCL error becomes a message and exit code 1.
template <class Body>
int run_app(int argc, char** argv, Body body) {
  app_open_output(argc, argv);
  try {
    body();
  } catch (const cl::BuildError& e) {
    std::fprintf(stderr, "build error %d in %s\n", e.err(), e.what());
    for (const auto& [device, log] : e.getBuildLog()) std::fprintf(stderr, "%s\n", log.c_str());
    return 1;
  } catch (const cl::Error& e) {
    std::fprintf(stderr, "OpenCL error %d in %s\n", e.err(), e.what());
    return 1;
  }
  app_close_output();
  return 0;
}
