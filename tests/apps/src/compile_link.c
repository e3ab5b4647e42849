/* compile_link: separate compilation and linking (OpenCL 1.2).
 * Covers: clCompileProgram with an embedded header (input_headers /
 * header_include_names), two compiled objects linked by clLinkProgram with
 * a helper function defined in one and called from the kernel in the
 * other, clCreateKernel on the linked program, a 1D launch. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kHeader = "int mix(int a, int b);\n";
static const char* kHelper =
    "#include \"mix.h\"\n"
    "int mix(int a, int b) { return a * 3 - b + OFFSET; }\n";
static const char* kKernel =
    "#include \"mix.h\"\n"
    "__kernel void apply(__global const int* a, __global const int* b, __global int* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = mix(a[i], b[i]) + (int)get_group_id(0);\n"
    "}\n";

enum { N = 4096 };

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program header, helper, kernel_part, linked;
  cl_program objects[2];
  cl_kernel k;
  static cl_int a[N], b[N], out[N];
  const char* header_names[1] = {"mix.h"};
  cl_mem ba, bb, bout;
  size_t global = N, local = 64;
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  header = clCreateProgramWithSource(ctx, 1, &kHeader, NULL, &err);
  CHECK_ERR(err);
  helper = clCreateProgramWithSource(ctx, 1, &kHelper, NULL, &err);
  CHECK_ERR(err);
  kernel_part = clCreateProgramWithSource(ctx, 1, &kKernel, NULL, &err);
  CHECK_ERR(err);
  CHECK(clCompileProgram(helper, 1, &dev, "-DOFFSET=11", 1, &header, header_names, NULL, NULL));
  CHECK(clCompileProgram(kernel_part, 1, &dev, "", 1, &header, header_names, NULL, NULL));
  objects[0] = kernel_part;
  objects[1] = helper;
  linked = clLinkProgram(ctx, 1, &dev, NULL, 2, objects, NULL, NULL, &err);
  CHECK_ERR(err);
  k = app_kernel(linked, "apply");

  for (i = 0; i < N; ++i) {
    a[i] = (cl_int)(app_rand() % 1000u);
    b[i] = (cl_int)(app_rand() % 1000u);
  }
  ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
  CHECK_ERR(err);
  bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
  CHECK_ERR(err);
  bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(k, 0, sizeof ba, &ba));
  CHECK(clSetKernelArg(k, 1, sizeof bb, &bb));
  CHECK(clSetKernelArg(k, 2, sizeof bout, &bout));
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("linked_apply", out, sizeof out);

  clReleaseMemObject(ba);
  clReleaseMemObject(bb);
  clReleaseMemObject(bout);
  clReleaseKernel(k);
  clReleaseProgram(linked);
  clReleaseProgram(header);
  clReleaseProgram(helper);
  clReleaseProgram(kernel_part);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
