/* binary: programs built twice and from binaries, as caching apps do.
 * Covers: the same source built with two different -D values (two programs
 * with the same kernel name alive at once), CL_PROGRAM_BINARY_SIZES /
 * CL_PROGRAM_BINARIES read back and turned into a program with
 * clCreateProgramWithBinary, a kernel from that program launched, kernel
 * aliasing (the same buffer passed as input and output). clCompileProgram /
 * clLinkProgram are in compile_link.c. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void affine(__global const int* in, __global int* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * FACTOR + (int)get_group_id(0);\n"
    "}\n";

enum { N = 2048 };

static void launch(cl_command_queue q, cl_program prog, cl_mem in, cl_mem out, const char* name) {
  static cl_int result[N];
  size_t global = N, local = 32;
  cl_kernel k = app_kernel(prog, "affine");
  CHECK(clSetKernelArg(k, 0, sizeof in, &in));
  CHECK(clSetKernelArg(k, 1, sizeof out, &out));
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL));
  app_dump(name, result, sizeof result);
  clReleaseKernel(k);
}

int main(int argc, char** argv) {
  cl_int err, status;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program p2, p5, from_binary;
  static cl_int data[N];
  cl_mem in, out, inout;
  size_t bin_size = 0;
  unsigned char* binary;
  const unsigned char* binaries[1];
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  for (i = 0; i < N; ++i) data[i] = (cl_int)(app_rand() % 1000u);
  in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  CHECK_ERR(err);
  out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof data, NULL, &err);
  CHECK_ERR(err);

  p2 = app_build(ctx, dev, kSource, "-DFACTOR=2");
  p5 = app_build(ctx, dev, kSource, "-DFACTOR=5");
  launch(q, p5, in, out, "factor5");
  launch(q, p2, in, out, "factor2");

  CHECK(clGetProgramInfo(p5, CL_PROGRAM_BINARY_SIZES, sizeof bin_size, &bin_size, NULL));
  app_print("has_binary", bin_size > 0);
  binary = (unsigned char*)malloc(bin_size);
  binaries[0] = binary;
  CHECK(clGetProgramInfo(p5, CL_PROGRAM_BINARIES, sizeof binaries, binaries, NULL));
  from_binary = clCreateProgramWithBinary(ctx, 1, &dev, &bin_size, binaries, &status, &err);
  CHECK_ERR(err);
  CHECK_ERR(status);
  CHECK(clBuildProgram(from_binary, 1, &dev, NULL, NULL, NULL));
  launch(q, from_binary, in, out, "from_binary");
  free(binary);

  /* In place: input and output are the same buffer. */
  inout = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  CHECK_ERR(err);
  launch(q, p2, inout, inout, "in_place");
  launch(q, p5, inout, inout, "in_place_again");

  clReleaseMemObject(in);
  clReleaseMemObject(out);
  clReleaseMemObject(inout);
  clReleaseProgram(p2);
  clReleaseProgram(p5);
  clReleaseProgram(from_binary);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
