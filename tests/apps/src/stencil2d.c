/* stencil2d: iterative 2D Jacobi relaxation with ping-pong buffers.
 * Covers: 2D NDRange with a given local size, a boundary-clamped 5-point
 * stencil (halo reads across slice borders), kernel arguments swapped every
 * iteration, one read at the end plus one mid-run read of a row band with
 * clEnqueueReadBufferRect, in-place edits through CL_MAP_READ|CL_MAP_WRITE
 * and CL_MAP_WRITE_INVALIDATE_REGION maps between iterations. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void jacobi(__global const float* src, __global float* dst, int w, int h) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  if (x >= w || y >= h) return;\n"
    "  int xl = max(x - 1, 0), xr = min(x + 1, w - 1);\n"
    "  int yu = max(y - 1, 0), yd = min(y + 1, h - 1);\n"
    "  float c = src[y * w + x];\n"
    "  float s = src[y * w + xl] + src[y * w + xr] + src[yu * w + x] + src[yd * w + x];\n"
    "  dst[y * w + x] = 0.5f * c + 0.125f * s;\n"
    "}\n";

enum { W = 96, H = 80, ITER = 24 };

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel k;
  static float grid[W * H], band[W * 8];
  cl_mem a, b;
  int w = W, h = H, it, i;
  size_t global[2] = {W, H}, local[2] = {16, 8};
  size_t buffer_origin[3] = {0, 30, 0}, host_origin[3] = {0, 0, 0};
  size_t region[3] = {W * sizeof(float), 8, 1};

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, NULL);
  k = app_kernel(prog, "jacobi");

  for (i = 0; i < W * H; ++i) grid[i] = (float)(app_rand() % 256u);
  a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof grid, grid, &err);
  CHECK_ERR(err);
  b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof grid, NULL, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(k, 2, sizeof w, &w));
  CHECK(clSetKernelArg(k, 3, sizeof h, &h));
  for (it = 0; it < ITER; ++it) {
    cl_mem src = (it % 2) ? b : a, dst = (it % 2) ? a : b;
    CHECK(clSetKernelArg(k, 0, sizeof src, &src));
    CHECK(clSetKernelArg(k, 1, sizeof dst, &dst));
    CHECK(clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL));
    if (it == ITER / 2) {
      /* Rows 30..37 of the current result, mid-run. */
      CHECK(clEnqueueReadBufferRect(q, dst, CL_TRUE, buffer_origin, host_origin, region,
                                    W * sizeof(float), 0, W * sizeof(float), 0, band, 0, NULL,
                                    NULL));
      app_dump("band", band, sizeof band);
    }
  }
  CHECK(clEnqueueReadBuffer(q, (ITER % 2) ? b : a, CL_TRUE, 0, sizeof grid, grid, 0, NULL, NULL));
  app_dump("grid", grid, sizeof grid);

  /* Edit the current grid in place through maps (rows 10..19 read-modify-
   * write, rows 50..59 overwritten with CL_MAP_WRITE_INVALIDATE_REGION),
   * then iterate on. */
  {
    cl_mem cur = (ITER % 2) ? b : a;
    float* rows = (float*)clEnqueueMapBuffer(q, cur, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                             10 * W * sizeof(float), 10 * W * sizeof(float), 0,
                                             NULL, NULL, &err);
    CHECK_ERR(err);
    for (i = 0; i < 10 * W; ++i) rows[i] = rows[i] * 0.5f + 64.0f;
    CHECK(clEnqueueUnmapMemObject(q, cur, rows, 0, NULL, NULL));
    rows = (float*)clEnqueueMapBuffer(q, cur, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION,
                                      50 * W * sizeof(float), 10 * W * sizeof(float), 0, NULL,
                                      NULL, &err);
    CHECK_ERR(err);
    for (i = 0; i < 10 * W; ++i) rows[i] = (float)(i % 97);
    CHECK(clEnqueueUnmapMemObject(q, cur, rows, 0, NULL, NULL));
    for (it = ITER; it < ITER + 4; ++it) {
      cl_mem src = (it % 2) ? b : a, dst = (it % 2) ? a : b;
      CHECK(clSetKernelArg(k, 0, sizeof src, &src));
      CHECK(clSetKernelArg(k, 1, sizeof dst, &dst));
      CHECK(clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL));
    }
    CHECK(clEnqueueReadBuffer(q, (ITER % 2) ? b : a, CL_TRUE, 0, sizeof grid, grid, 0, NULL,
                              NULL));
    app_dump("grid_after_mapped_edits", grid, sizeof grid);
  }

  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
