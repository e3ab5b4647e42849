/* mandelbrot: a 2D launch with a very uneven cost per row.
 * Covers: 2D NDRange with NULL local size, a non-iterative kernel whose
 * work differs strongly across the split dimension, a uchar output
 * (element size 1), a launch over a sub-rectangle via a global offset, and
 * a row-sum kernel over the result (1D over rows, loops over columns). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void mandel(__global uchar* out, int w, int h, float x0, float y0, float step) {\n"
    "  int px = get_global_id(0), py = get_global_id(1);\n"
    "  float cr = x0 + px * step, ci = y0 + py * step;\n"
    "  float zr = 0.0f, zi = 0.0f;\n"
    "  int it = 0;\n"
    "  while (it < 255 && zr * zr + zi * zi <= 4.0f) {\n"
    "    float t = zr * zr - zi * zi + cr;\n"
    "    zi = 2.0f * zr * zi + ci;\n"
    "    zr = t;\n"
    "    ++it;\n"
    "  }\n"
    "  out[py * w + px] = (uchar)it;\n"
    "}\n"
    "__kernel void row_sums(__global const uchar* img, int w, __global uint* sums) {\n"
    "  int y = get_global_id(0);\n"
    "  uint s = 0;\n"
    "  for (int x = 0; x < w; ++x) s += img[y * w + x];\n"
    "  sums[y] = s;\n"
    "}\n";

enum { W = 192, H = 128 };

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel mandel, sums;
  static cl_uchar img[W * H];
  static cl_uint row[H];
  cl_mem bimg, bsums;
  cl_int w = W, h = H;
  float x0 = -2.0f, y0 = -1.0f, step = 2.0f / H;
  size_t global[2] = {W, H}, offset[2] = {32, 16}, sub[2] = {64, 48}, rows = H;
  cl_uchar zero = 0;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, "-cl-std=CL1.2");
  mandel = app_kernel(prog, "mandel");
  sums = app_kernel(prog, "row_sums");
  bimg = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof img, NULL, &err);
  CHECK_ERR(err);
  bsums = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof row, NULL, &err);
  CHECK_ERR(err);

  CHECK(clSetKernelArg(mandel, 0, sizeof bimg, &bimg));
  CHECK(clSetKernelArg(mandel, 1, sizeof w, &w));
  CHECK(clSetKernelArg(mandel, 2, sizeof h, &h));
  CHECK(clSetKernelArg(mandel, 3, sizeof x0, &x0));
  CHECK(clSetKernelArg(mandel, 4, sizeof y0, &y0));
  CHECK(clSetKernelArg(mandel, 5, sizeof step, &step));
  CHECK(clEnqueueNDRangeKernel(q, mandel, 2, NULL, global, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bimg, CL_TRUE, 0, sizeof img, img, 0, NULL, NULL));
  app_dump("image", img, sizeof img);

  CHECK(clSetKernelArg(sums, 0, sizeof bimg, &bimg));
  CHECK(clSetKernelArg(sums, 1, sizeof w, &w));
  CHECK(clSetKernelArg(sums, 2, sizeof bsums, &bsums));
  CHECK(clEnqueueNDRangeKernel(q, sums, 1, NULL, &rows, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bsums, CL_TRUE, 0, sizeof row, row, 0, NULL, NULL));
  app_dump("row_sums", row, sizeof row);

  /* Zoomed redraw of a sub-rectangle only, on a cleared image. */
  step = step / 4;
  CHECK(clEnqueueFillBuffer(q, bimg, &zero, 1, 0, sizeof img, 0, NULL, NULL));
  CHECK(clSetKernelArg(mandel, 5, sizeof step, &step));
  CHECK(clEnqueueNDRangeKernel(q, mandel, 2, offset, sub, NULL, 0, NULL, NULL));
  CHECK(clEnqueueNDRangeKernel(q, sums, 1, NULL, &rows, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bimg, CL_TRUE, 0, sizeof img, img, 0, NULL, NULL));
  app_dump("zoomed", img, sizeof img);
  CHECK(clEnqueueReadBuffer(q, bsums, CL_TRUE, 0, sizeof row, row, 0, NULL, NULL));
  app_dump("zoomed_row_sums", row, sizeof row);

  clReleaseMemObject(bimg);
  clReleaseMemObject(bsums);
  clReleaseKernel(mandel);
  clReleaseKernel(sums);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
