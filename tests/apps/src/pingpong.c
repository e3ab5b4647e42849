/* pingpong: time-stepped stencils whose buffers swap roles every step, the
 * pattern "data stays where it was computed" is about (issue 10): a 1-D
 * 3-point heat step and a 2-D 5-point step, each over two buffers passed in
 * alternate argument order, 40 steps, read back once at the end. Under the
 * shim with the partitions of successive launches aligned, only the rows at
 * slice borders (the halo) move between devices after the first launches;
 * tests/apps/py/stencil_locality_test.py checks that from the trace. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void heat1d(__global const float* src, __global float* dst, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i >= n) return;\n"
    "  float l = i > 0 ? src[i - 1] : src[i];\n"
    "  float r = i < n - 1 ? src[i + 1] : src[i];\n"
    "  dst[i] = 0.25f * l + 0.5f * src[i] + 0.25f * r;\n"
    "}\n"
    "__kernel void heat2d(__global const float* src, __global float* dst, int w, int h) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  if (x >= w || y >= h) return;\n"
    "  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { dst[y * w + x] = src[y * w + x]; return; }\n"
    "  dst[y * w + x] = 0.6f * src[y * w + x] + 0.1f * (src[y * w + x - 1] + src[y * w + x + 1] +\n"
    "                   src[(y - 1) * w + x] + src[(y + 1) * w + x]);\n"
    "}\n";

enum { N = 1 << 14, W = 256, H = 192, STEPS = 40 };

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel k1, k2;
  static float line[N], grid[W * H];
  cl_mem a1, b1, a2, b2;
  int n = N, w = W, h = H, it, i;
  size_t global1 = N, local1 = 64;
  size_t global2[2] = {W, H}, local2[2] = {16, 8};

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, NULL);
  k1 = app_kernel(prog, "heat1d");
  k2 = app_kernel(prog, "heat2d");

  for (i = 0; i < N; ++i) line[i] = (float)(app_rand() % 1000u);
  for (i = 0; i < W * H; ++i) grid[i] = (float)(app_rand() % 256u);
  a1 = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof line, line, &err);
  CHECK_ERR(err);
  b1 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof line, NULL, &err);
  CHECK_ERR(err);
  a2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof grid, grid, &err);
  CHECK_ERR(err);
  b2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof grid, NULL, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(k1, 2, sizeof n, &n));
  CHECK(clSetKernelArg(k2, 2, sizeof w, &w));
  CHECK(clSetKernelArg(k2, 3, sizeof h, &h));
  for (it = 0; it < STEPS; ++it) {
    cl_mem s1 = (it % 2) ? b1 : a1, d1 = (it % 2) ? a1 : b1;
    cl_mem s2 = (it % 2) ? b2 : a2, d2 = (it % 2) ? a2 : b2;
    CHECK(clSetKernelArg(k1, 0, sizeof s1, &s1));
    CHECK(clSetKernelArg(k1, 1, sizeof d1, &d1));
    CHECK(clEnqueueNDRangeKernel(q, k1, 1, NULL, &global1, &local1, 0, NULL, NULL));
    CHECK(clSetKernelArg(k2, 0, sizeof s2, &s2));
    CHECK(clSetKernelArg(k2, 1, sizeof d2, &d2));
    CHECK(clEnqueueNDRangeKernel(q, k2, 2, NULL, global2, local2, 0, NULL, NULL));
  }
  CHECK(clEnqueueReadBuffer(q, (STEPS % 2) ? b1 : a1, CL_TRUE, 0, sizeof line, line, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, (STEPS % 2) ? b2 : a2, CL_TRUE, 0, sizeof grid, grid, 0, NULL, NULL));
  app_dump("line", line, sizeof line);
  app_dump("grid", grid, sizeof grid);

  clReleaseMemObject(a1);
  clReleaseMemObject(b1);
  clReleaseMemObject(a2);
  clReleaseMemObject(b2);
  clReleaseKernel(k1);
  clReleaseKernel(k2);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
