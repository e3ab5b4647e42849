// modern: the OpenCL 2.x/3.0 host API that current programs use.
// Covers: clCreateCommandQueueWithProperties (through the C++ bindings at
// CL_HPP_TARGET_OPENCL_VERSION 300, with profiling on),
// clCreateBufferWithProperties (3.0), fill/copy through the bindings, an
// offset launch, cl::Event profiling data, clSetMemObjectDestructorCallback
// being called on release. (PoCL 3.1 CPU devices take OpenCL C 1.2 only.)
#define CL_HPP_TARGET_OPENCL_VERSION 300
#define CL_TARGET_OPENCL_VERSION 300
#define CL_HPP_MINIMUM_OPENCL_VERSION 200
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <cstdio>
#include <vector>

#include "app_common.h"

static const char* kSource = R"CLC(
__kernel void saxpy(__global const float* x, __global float* y, float a) {
  size_t i = get_global_id(0);
  y[i] = a * x[i] + y[i];
}
)CLC";

static std::atomic<int> destructors{0};

static void CL_CALLBACK on_destroy_mem(cl_mem, void*) { ++destructors; }

int main(int argc, char** argv) {
  app_open_output(argc, argv);
  try {
    const int n = 8192;
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    std::vector<cl::Device> devices;
    platforms.at(0).getDevices(CL_DEVICE_TYPE_ALL, &devices);
    cl::Device device = devices.at(0);
    cl::Context context(device);
    cl::CommandQueue queue(context, device, cl::QueueProperties::Profiling);
    cl::Program program(context, kSource);
    program.build("-cl-std=CL1.2");
    cl::Kernel saxpy(program, "saxpy");

    std::vector<float> x(n), y(n);
    for (float& v : x) v = app_randf();
    for (float& v : y) v = app_randf();
    cl_int err = CL_SUCCESS;
    cl_mem_properties no_props[] = {0};
    cl_mem raw_x = clCreateBufferWithProperties(context(), no_props,
                                                CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                                n * sizeof(float), x.data(), &err);
    CHECK_ERR(err);
    CHECK(clSetMemObjectDestructorCallback(raw_x, on_destroy_mem, nullptr));
    cl::Buffer dx(raw_x);  // takes ownership
    cl::Buffer dy(context, CL_MEM_READ_WRITE, n * sizeof(float));
    queue.enqueueWriteBuffer(dy, CL_FALSE, 0, n * sizeof(float), y.data());
    cl::Buffer dz(context, CL_MEM_READ_WRITE, n * sizeof(float));
    queue.enqueueFillBuffer(dz, 1.5f, 0, n * sizeof(float));

    saxpy.setArg(0, dx);
    saxpy.setArg(1, dy);
    saxpy.setArg(2, 2.0f);
    cl::Event launch;
    queue.enqueueNDRangeKernel(saxpy, cl::NullRange, cl::NDRange(n), cl::NDRange(128), nullptr,
                               &launch);
    saxpy.setArg(0, dz);
    queue.enqueueNDRangeKernel(saxpy, cl::NDRange(1024), cl::NDRange(n - 2048), cl::NullRange);
    launch.wait();
    const cl_ulong start = launch.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const cl_ulong end = launch.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    app_print("profile_ordered", end >= start && start > 0);
    queue.enqueueReadBuffer(dy, CL_TRUE, 0, n * sizeof(float), y.data());
    app_dump("y", y.data(), n * sizeof(float));
    cl::Buffer dcopy(context, CL_MEM_READ_WRITE, n * sizeof(float));
    queue.enqueueCopyBuffer(dy, dcopy, 4096, 0, 4096);
    std::vector<float> head(1024);
    queue.enqueueReadBuffer(dcopy, CL_TRUE, 0, 4096, head.data());
    app_dump("copied_head", head.data(), 4096);
    queue.finish();
    dx = cl::Buffer();  // releases raw_x: its destructor callback runs
    for (int waited = 0; destructors.load() < 1 && waited < 30000; ++waited)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    app_print("mem_destructor_called", destructors.load());
  } catch (const cl::Error& e) {
    std::fprintf(stderr, "OpenCL error %d in %s\n", e.err(), e.what());
    return 1;
  }
  app_close_output();
  return 0;
}
