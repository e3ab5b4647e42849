/* device_macros: buffers written only under a macro the device predefines.
 * Each kernel writes one buffer unconditionally and another only under
 * `__OPENCL_VERSION__ >= 200`, `#ifndef cl_khr_fp16`, `__IMAGE_SUPPORT__`,
 * an extension macro (cl_khr_byte_addressable_store) or an OpenCL C version
 * test, so that a compiler analysing with other macros than the device's
 * would miss (or invent) writes. Built once without -cl-std and once with
 * -cl-std=CL1.2 (the language version, hence __OPENCL_C_VERSION__, follows
 * the option). Every buffer starts with a known pattern, so a write the
 * shim fails to bring back shows as stale bytes. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "#define BODY(out) out[i] = out[i] * 3 + (int)i + 1\n"
    "__kernel void by_version(__global int* always, __global int* guarded) {\n"
    "  size_t i = get_global_id(0);\n"
    "  always[i] = (int)i;\n"
    "#if defined(__OPENCL_VERSION__) && __OPENCL_VERSION__ >= 200\n"
    "  BODY(guarded);\n"
    "#endif\n"
    "}\n"
    "__kernel void without_fp16(__global int* always, __global int* guarded) {\n"
    "  size_t i = get_global_id(0);\n"
    "  always[i] = (int)i;\n"
    "#ifndef cl_khr_fp16\n"
    "  BODY(guarded);\n"
    "#endif\n"
    "}\n"
    "__kernel void with_images(__global int* always, __global int* guarded) {\n"
    "  size_t i = get_global_id(0);\n"
    "  always[i] = (int)i;\n"
    "#ifdef __IMAGE_SUPPORT__\n"
    "  BODY(guarded);\n"
    "#endif\n"
    "}\n"
    "__kernel void with_extension(__global int* always, __global int* guarded) {\n"
    "  size_t i = get_global_id(0);\n"
    "  always[i] = (int)i;\n"
    "#ifdef cl_khr_byte_addressable_store\n"
    "  BODY(guarded);\n"
    "#endif\n"
    "}\n"
    "__kernel void by_c_version(__global int* always, __global int* guarded) {\n"
    "  size_t i = get_global_id(0);\n"
    "  always[i] = (int)i;\n"
    "#if __OPENCL_C_VERSION__ >= 200\n"
    "  BODY(guarded);\n"
    "#else\n"
    "  BODY(always);\n"
    "#endif\n"
    "}\n";

enum { N = 4096 };

static void run(cl_context ctx, cl_command_queue q, cl_program prog, const char* kernel,
                const char* label) {
  static cl_int always[N], guarded[N];
  char name[128];
  size_t global = N, local = 64;
  cl_int err;
  int i;
  cl_mem a, g;
  cl_kernel k = clCreateKernel(prog, kernel, &err);
  CHECK_ERR(err);
  for (i = 0; i < N; ++i) always[i] = guarded[i] = 1000 + i;
  a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof always, always, &err);
  CHECK_ERR(err);
  g = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof guarded, guarded, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(k, 0, sizeof a, &a));
  CHECK(clSetKernelArg(k, 1, sizeof g, &g));
  for (i = 0; i < 3; ++i) CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, a, CL_TRUE, 0, sizeof always, always, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, g, CL_TRUE, 0, sizeof guarded, guarded, 0, NULL, NULL));
  snprintf(name, sizeof name, "%s_%s_always", label, kernel);
  app_dump(name, always, sizeof always);
  snprintf(name, sizeof name, "%s_%s_guarded", label, kernel);
  app_dump(name, guarded, sizeof guarded);
  clReleaseMemObject(a);
  clReleaseMemObject(g);
  clReleaseKernel(k);
}

int main(int argc, char** argv) {
  static const char* kKernels[] = {"by_version", "without_fp16", "with_images", "with_extension",
                                   "by_c_version"};
  static const char* kOptions[][2] = {{"default", ""}, {"cl12", "-cl-std=CL1.2"}};
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  size_t o, k;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  for (o = 0; o < 2; ++o) {
    cl_program prog = app_build(ctx, dev, kSource, kOptions[o][1]);
    for (k = 0; k < sizeof kKernels / sizeof kKernels[0]; ++k) run(ctx, q, prog, kKernels[k], kOptions[o][0]);
    clReleaseProgram(prog);
  }
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
