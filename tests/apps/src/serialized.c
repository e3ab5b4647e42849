/* serialized: compiled objects and libraries saved as binaries and loaded
 * again before linking (OpenCL 1.2).
 * Covers: CL_PROGRAM_BINARY_SIZES / CL_PROGRAM_BINARIES of a compiled object
 * and of a library, clCreateProgramWithBinary of them, clLinkProgram of the
 * reloaded object with the reloaded library, and of a reloaded object with a
 * fresh one; the output of each linked kernel is dumped (zeros if it never
 * ran). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kHelper = "int blend(int a, int b) { return a * 5 - b * 2 + BIAS; }\n";
static const char* kKernel =
    "int blend(int a, int b);\n"
    "__kernel void mixk(__global const int* a, __global int* out, int shift) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = blend(a[i], (int)i) + (int)get_group_id(0) * shift;\n"
    "}\n";

enum { N = 1024 };

static cl_program reload(cl_context ctx, cl_device_id dev, cl_program p) {
  size_t size = 0;
  unsigned char* data;
  const unsigned char* cdata;
  cl_int err, status;
  cl_program again;
  CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL));
  data = (unsigned char*)malloc(size);
  CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof data, &data, NULL));
  cdata = data;
  again = clCreateProgramWithBinary(ctx, 1, &dev, &size, &cdata, &status, &err);
  CHECK_ERR(err);
  CHECK_ERR(status);
  free(data);
  return again;
}

static cl_program compiled(cl_context ctx, cl_device_id dev, const char* src, const char* options) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CHECK_ERR(err);
  CHECK(clCompileProgram(p, 1, &dev, options, 0, NULL, NULL, NULL, NULL));
  return p;
}

static void run(cl_context ctx, cl_command_queue q, cl_program prog, cl_mem in, int shift,
                const char* name) {
  static cl_int out[N];
  cl_int err;
  size_t global = N, local = 32;
  cl_kernel k = clCreateKernel(prog, "mixk", &err);
  cl_mem bout;
  CHECK_ERR(err);
  bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(k, 0, sizeof in, &in));
  CHECK(clSetKernelArg(k, 1, sizeof bout, &bout));
  CHECK(clSetKernelArg(k, 2, sizeof shift, &shift));
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump(name, out, sizeof out);
  clReleaseMemObject(bout);
  clReleaseKernel(k);
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  static cl_int in[N];
  cl_mem bin;
  cl_program helper, kernel, helper_again, kernel_again, library, library_again, exe;
  cl_program inputs[2];
  cl_program_binary_type type;
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  for (i = 0; i < N; ++i) in[i] = (cl_int)(app_rand() % 512u);
  bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  CHECK_ERR(err);

  helper = compiled(ctx, dev, kHelper, "-DBIAS=3");
  kernel = compiled(ctx, dev, kKernel, "");

  /* Reloaded objects, linked. */
  helper_again = reload(ctx, dev, helper);
  kernel_again = reload(ctx, dev, kernel);
  CHECK(clGetProgramBuildInfo(kernel_again, dev, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, NULL));
  app_print("reloaded_object_type", (long long)type);
  inputs[0] = kernel_again;
  inputs[1] = helper_again;
  exe = clLinkProgram(ctx, 1, &dev, NULL, 2, inputs, NULL, NULL, &err);
  CHECK_ERR(err);
  run(ctx, q, exe, bin, 7, "reloaded_objects");
  clReleaseProgram(exe);

  /* A library, reloaded, linked with a fresh object. */
  library = clLinkProgram(ctx, 1, &dev, "-create-library", 1, &helper, NULL, NULL, &err);
  CHECK_ERR(err);
  library_again = reload(ctx, dev, library);
  CHECK(clGetProgramBuildInfo(library_again, dev, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, NULL));
  app_print("reloaded_library_type", (long long)type);
  inputs[0] = kernel;
  inputs[1] = library_again;
  exe = clLinkProgram(ctx, 1, &dev, NULL, 2, inputs, NULL, NULL, &err);
  CHECK_ERR(err);
  run(ctx, q, exe, bin, -3, "reloaded_library");
  clReleaseProgram(exe);

  clReleaseProgram(library_again);
  clReleaseProgram(library);
  clReleaseProgram(helper_again);
  clReleaseProgram(kernel_again);
  clReleaseProgram(helper);
  clReleaseProgram(kernel);
  clReleaseMemObject(bin);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
