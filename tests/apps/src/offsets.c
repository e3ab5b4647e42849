/* offsets: launches with a non-zero global offset.
 * Covers: get_global_offset in a kernel, 1D and 2D launches with offsets
 * (local size given and NULL), clEnqueueFillBuffer so that the elements a
 * launch does not touch keep a known pattern. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void mark(__global int* out, __global const int* in) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i - get_global_offset(0)] * 3 + (int)get_global_offset(0)\n"
    "         + (int)get_group_id(0) * 1000;\n"
    "}\n"
    "__kernel void mark2d(__global int* out, int pitch) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1);\n"
    "  out[y * pitch + x] = (int)((x - get_global_offset(0)) * 100 + (y - get_global_offset(1)))\n"
    "                     + (int)(get_group_id(1) * 1000000);\n"
    "}\n"
    "__kernel void shift(__global const float* in, __global float* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] + in[i - 1] * 0.5f;\n"
    "}\n";

enum { N = 8192, PITCH = 64, ROWS = 48 };

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel mark, mark2d, shift;
  static cl_int in[N], out[N], grid[PITCH * ROWS];
  static float fin[N], fout[N];
  cl_int pattern = -7, pitch = PITCH;
  float fzero = 0.0f;
  cl_mem bin, bout, bgrid, bfin, bfout;
  size_t offset = 1024, global = 4096, local = 32;
  size_t offset2[2] = {8, 5}, global2[2] = {48, 32}, local2[2] = {8, 4};
  size_t soffset = 1, sglobal = N - 1;
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, "");
  mark = app_kernel(prog, "mark");
  mark2d = app_kernel(prog, "mark2d");
  shift = app_kernel(prog, "shift");

  for (i = 0; i < N; ++i) {
    in[i] = (cl_int)(app_rand() % 10000u);
    fin[i] = app_randf();
  }
  bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  CHECK_ERR(err);
  bout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof out, NULL, &err);
  CHECK_ERR(err);
  bgrid = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof grid, NULL, &err);
  CHECK_ERR(err);
  bfin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof fin, fin, &err);
  CHECK_ERR(err);
  bfout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof fout, NULL, &err);
  CHECK_ERR(err);

  CHECK(clEnqueueFillBuffer(q, bout, &pattern, sizeof pattern, 0, sizeof out, 0, NULL, NULL));
  CHECK(clSetKernelArg(mark, 0, sizeof bout, &bout));
  CHECK(clSetKernelArg(mark, 1, sizeof bin, &bin));
  CHECK(clEnqueueNDRangeKernel(q, mark, 1, &offset, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("mark", out, sizeof out);

  /* Same kernel, another offset and local size, on top of the result. */
  offset = 6000;
  global = 2000;
  local = 16;
  CHECK(clEnqueueNDRangeKernel(q, mark, 1, &offset, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("mark_again", out, sizeof out);

  /* A fill over part of what the launches wrote, then a launch next to it. */
  CHECK(clEnqueueFillBuffer(q, bout, &pattern, sizeof pattern, 3000 * sizeof(cl_int),
                            1500 * sizeof(cl_int), 0, NULL, NULL));
  offset = 4608;
  global = 1024;
  local = 64;
  CHECK(clEnqueueNDRangeKernel(q, mark, 1, &offset, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("filled_and_marked", out, sizeof out);

  CHECK(clEnqueueFillBuffer(q, bgrid, &pattern, sizeof pattern, 0, sizeof grid, 0, NULL, NULL));
  CHECK(clSetKernelArg(mark2d, 0, sizeof bgrid, &bgrid));
  CHECK(clSetKernelArg(mark2d, 1, sizeof pitch, &pitch));
  CHECK(clEnqueueNDRangeKernel(q, mark2d, 2, offset2, global2, local2, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bgrid, CL_TRUE, 0, sizeof grid, grid, 0, NULL, NULL));
  app_dump("mark2d", grid, sizeof grid);

  /* Offset 1 so that in[i - 1] stays inside the buffer. */
  CHECK(clEnqueueFillBuffer(q, bfout, &fzero, sizeof fzero, 0, sizeof fout, 0, NULL, NULL));
  CHECK(clSetKernelArg(shift, 0, sizeof bfin, &bfin));
  CHECK(clSetKernelArg(shift, 1, sizeof bfout, &bfout));
  CHECK(clEnqueueNDRangeKernel(q, shift, 1, &soffset, &sglobal, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bfout, CL_TRUE, 0, sizeof fout, fout, 0, NULL, NULL));
  app_dump("shift", fout, sizeof fout);

  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  clReleaseMemObject(bgrid);
  clReleaseMemObject(bfin);
  clReleaseMemObject(bfout);
  clReleaseKernel(mark);
  clReleaseKernel(mark2d);
  clReleaseKernel(shift);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
