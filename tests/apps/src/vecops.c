/* vecops: a plain 1D vector program.
 * Covers: NULL local size (incl. an odd global size), COPY_HOST_PTR inputs,
 * a -D build macro, helper functions using get_group_id/get_global_size,
 * clCreateKernelsInProgram + CL_KERNEL_FUNCTION_NAME lookup,
 * clGetKernelWorkGroupInfo to choose a local size, blocking reads, a
 * second context (own program, local size 1: 4099 groups) alive next to
 * the first and released first. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "#ifndef SCALE\n"
    "#error SCALE must come from the build options\n"
    "#endif\n"
    "int first_index(void) { return get_group_id(0) * get_local_size(0) + get_local_id(0); }\n"
    "int stride(void) { return get_global_size(0); }\n"
    "__kernel void axpy(__global const float* x, __global const float* y,\n"
    "                   __global float* out, float a, int n) {\n"
    "  for (int i = first_index(); i < n; i += stride())\n"
    "    out[i] = a * x[i] + y[i] * SCALE;\n"
    "}\n"
    "__kernel void square_odd(__global const int* in, __global int* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * in[i] + OFFSET;\n"
    "}\n"
    "__kernel void tag_groups(__global uint* tags, __global const float* x) {\n"
    "  size_t i = get_global_id(0);\n"
    "  tags[i] = (uint)(get_group_id(0) * 100000 + get_num_groups(0) * 10 + (x[i] > 0.0f));\n"
    "}\n";

enum { N = 16384, ODD = 4099 };

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel kernels[8];
  cl_kernel axpy = NULL, square_odd = NULL, tag_groups = NULL;
  cl_uint num_kernels = 0, k;
  static float x[N], y[N], out[N];
  static int ints[ODD], squares[ODD];
  static cl_uint tags[N];
  size_t wgs = 0, local, global;
  float a = 1.5f;
  int n = N;
  cl_mem bx, by, bout, bints, bsq, btags;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, "-DSCALE=3 -D OFFSET=7 -cl-std=CL1.2");

  CHECK(clCreateKernelsInProgram(prog, 8, kernels, &num_kernels));
  app_print("kernels", num_kernels);
  for (k = 0; k < num_kernels; ++k) {
    char name[64];
    CHECK(clGetKernelInfo(kernels[k], CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL));
    if (!strcmp(name, "axpy")) axpy = kernels[k];
    else if (!strcmp(name, "square_odd")) square_odd = kernels[k];
    else if (!strcmp(name, "tag_groups")) tag_groups = kernels[k];
  }
  if (!axpy || !square_odd || !tag_groups) {
    fprintf(stderr, "kernel missing\n");
    return 1;
  }

  for (k = 0; k < N; ++k) {
    x[k] = app_randf();
    y[k] = app_randf();
  }
  for (k = 0; k < ODD; ++k) ints[k] = (int)(app_rand() % 2000u) - 1000;

  bx = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
  CHECK_ERR(err);
  by = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof y, y, &err);
  CHECK_ERR(err);
  bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  CHECK_ERR(err);
  bints = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof ints, ints, &err);
  CHECK_ERR(err);
  bsq = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof squares, NULL, &err);
  CHECK_ERR(err);
  btags = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof tags, NULL, &err);
  CHECK_ERR(err);

  /* Grid-stride loop: each work-item covers 4 elements; NULL local size. */
  CHECK(clSetKernelArg(axpy, 0, sizeof bx, &bx));
  CHECK(clSetKernelArg(axpy, 1, sizeof by, &by));
  CHECK(clSetKernelArg(axpy, 2, sizeof bout, &bout));
  CHECK(clSetKernelArg(axpy, 3, sizeof a, &a));
  CHECK(clSetKernelArg(axpy, 4, sizeof n, &n));
  global = N / 4;
  CHECK(clEnqueueNDRangeKernel(q, axpy, 1, NULL, &global, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("axpy", out, sizeof out);

  /* An odd global size with NULL local size. */
  CHECK(clSetKernelArg(square_odd, 0, sizeof bints, &bints));
  CHECK(clSetKernelArg(square_odd, 1, sizeof bsq, &bsq));
  global = ODD;
  CHECK(clEnqueueNDRangeKernel(q, square_odd, 1, NULL, &global, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bsq, CL_TRUE, 0, sizeof squares, squares, 0, NULL, NULL));
  app_dump("square_odd", squares, sizeof squares);

  /* Local size chosen from the kernel's work-group info. */
  CHECK(clGetKernelWorkGroupInfo(tag_groups, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wgs, &wgs,
                                 NULL));
  local = wgs >= 64 ? 64 : 1;
  app_print("local_ok", wgs >= 64);
  CHECK(clSetKernelArg(tag_groups, 0, sizeof btags, &btags));
  CHECK(clSetKernelArg(tag_groups, 1, sizeof bx, &bx));
  global = N;
  CHECK(clEnqueueNDRangeKernel(q, tag_groups, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clFinish(q));
  CHECK(clEnqueueReadBuffer(q, btags, CL_TRUE, 0, sizeof tags, tags, 0, NULL, NULL));
  app_dump("tag_groups", tags, sizeof tags);

  /* A second context alive next to the first, with its own program built
   * from the same source and options, then released before the first. */
  {
    cl_context ctx2 = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q2;
    cl_program prog2;
    cl_kernel sq2;
    cl_mem in2, out2;
    CHECK_ERR(err);
    q2 = clCreateCommandQueue(ctx2, dev, 0, &err);
    CHECK_ERR(err);
    prog2 = app_build(ctx2, dev, kSource, "-DSCALE=3 -D OFFSET=-70 -cl-std=CL1.2");
    sq2 = app_kernel(prog2, "square_odd");
    in2 = clCreateBuffer(ctx2, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof ints, ints, &err);
    CHECK_ERR(err);
    out2 = clCreateBuffer(ctx2, CL_MEM_WRITE_ONLY, sizeof squares, NULL, &err);
    CHECK_ERR(err);
    CHECK(clSetKernelArg(sq2, 0, sizeof in2, &in2));
    CHECK(clSetKernelArg(sq2, 1, sizeof out2, &out2));
    global = ODD;
    local = 1;
    CHECK(clEnqueueNDRangeKernel(q2, sq2, 1, NULL, &global, &local, 0, NULL, NULL));
    /* Meanwhile the first context works too. */
    global = N;
    local = 64;
    CHECK(clEnqueueNDRangeKernel(q, tag_groups, 1, NULL, &global, &local, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q2, out2, CL_TRUE, 0, sizeof squares, squares, 0, NULL, NULL));
    app_dump("second_context", squares, sizeof squares);
    clReleaseMemObject(in2);
    clReleaseMemObject(out2);
    clReleaseKernel(sq2);
    clReleaseProgram(prog2);
    clReleaseCommandQueue(q2);
    clReleaseContext(ctx2);
    CHECK(clEnqueueReadBuffer(q, btags, CL_TRUE, 0, sizeof tags, tags, 0, NULL, NULL));
    app_dump("tag_groups_again", tags, sizeof tags);
  }

  clReleaseMemObject(bx);
  clReleaseMemObject(by);
  clReleaseMemObject(bout);
  clReleaseMemObject(bints);
  clReleaseMemObject(bsq);
  clReleaseMemObject(btags);
  for (k = 0; k < num_kernels; ++k) clReleaseKernel(kernels[k]);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
