/* buffers: the buffer-transfer API around kernel launches.
 * Covers: USE_HOST_PTR buffers read through blocking map / unmap, map for
 * write then unmap then launch, sub-buffers as kernel arguments (and the
 * parent read afterwards), clEnqueueWriteBufferRect / ReadBufferRect /
 * CopyBufferRect, clEnqueueCopyBuffer, clEnqueueFillBuffer with an 8-byte
 * pattern, kernels launched on buffers written only by copies. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void twice(__global float* v, float add) {\n"
    "  size_t i = get_global_id(0);\n"
    "  v[i] = v[i] * 2.0f + add;\n"
    "}\n"
    "__kernel void inc2d(__global int* m, int pitch, int step) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1);\n"
    "  m[y * pitch + x] += (int)(x + 1000 * y) * step;\n"
    "}\n";

enum { N = 4096, MW = 64, MH = 64 };

static void set_twice(cl_kernel k, cl_mem buf, float add) {
  CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
  CHECK(clSetKernelArg(k, 1, sizeof add, &add));
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel twice, inc2d;
  static float host_a[N], b_init[N], result[N];
  static cl_int block[16 * 8], matrix[MW * MH], window[20 * 10];
  cl_mem ba, bb, sub0, sub1, bm, bm2, bc;
  cl_buffer_region r0, r1;
  cl_uint align_bits = 0;
  size_t half = N / 2 * sizeof(float), align;
  size_t global = N, local = 64, global_half = N / 2;
  size_t g2[2] = {MW, MH};
  cl_int pitch = MW, step = 1;
  float* mapped;
  double pattern8 = 0.0;
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, "");
  twice = app_kernel(prog, "twice");
  inc2d = app_kernel(prog, "inc2d");

  /* USE_HOST_PTR: launch, then look at the result through a blocking map. */
  for (i = 0; i < N; ++i) host_a[i] = app_randf();
  ba = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, sizeof host_a, host_a, &err);
  CHECK_ERR(err);
  set_twice(twice, ba, 0.25f);
  CHECK(clEnqueueNDRangeKernel(q, twice, 1, NULL, &global, &local, 0, NULL, NULL));
  mapped = (float*)clEnqueueMapBuffer(q, ba, CL_TRUE, CL_MAP_READ, 0, sizeof host_a, 0, NULL,
                                      NULL, &err);
  CHECK_ERR(err);
  app_dump("use_host_ptr_mapped", mapped, sizeof host_a);
  CHECK(clEnqueueUnmapMemObject(q, ba, mapped, 0, NULL, NULL));

  /* Map a part for writing, change it, unmap, launch again. */
  mapped = (float*)clEnqueueMapBuffer(q, ba, CL_TRUE, CL_MAP_WRITE, 100 * sizeof(float),
                                      500 * sizeof(float), 0, NULL, NULL, &err);
  CHECK_ERR(err);
  for (i = 0; i < 500; ++i) mapped[i] = (float)i;
  CHECK(clEnqueueUnmapMemObject(q, ba, mapped, 0, NULL, NULL));
  set_twice(twice, ba, -1.0f);
  CHECK(clEnqueueNDRangeKernel(q, twice, 1, NULL, &global, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, ba, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL));
  app_dump("use_host_ptr_read", result, sizeof result);

  /* Sub-buffers of a plain buffer, each used as a kernel argument. */
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL));
  align = align_bits / 8;
  if (align == 0 || half % align != 0) {
    fprintf(stderr, "unexpected base address alignment %u bits\n", align_bits);
    return 1;
  }
  for (i = 0; i < N; ++i) b_init[i] = app_randf();
  bb = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof b_init, NULL, &err);
  CHECK_ERR(err);
  CHECK(clEnqueueWriteBuffer(q, bb, CL_TRUE, 0, sizeof b_init, b_init, 0, NULL, NULL));
  r0.origin = 0;
  r0.size = half;
  r1.origin = half;
  r1.size = half;
  sub0 = clCreateSubBuffer(bb, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r0, &err);
  CHECK_ERR(err);
  sub1 = clCreateSubBuffer(bb, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r1, &err);
  CHECK_ERR(err);
  set_twice(twice, sub1, 3.0f);
  CHECK(clEnqueueNDRangeKernel(q, twice, 1, NULL, &global_half, &local, 0, NULL, NULL));
  set_twice(twice, sub0, -2.5f);
  CHECK(clEnqueueNDRangeKernel(q, twice, 1, NULL, &global_half, &local, 0, NULL, NULL));
  /* Once more on the upper half, partly overlapping what the host reads next. */
  set_twice(twice, sub1, 0.5f);
  CHECK(clEnqueueNDRangeKernel(q, twice, 1, NULL, &global_half, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, sub1, CL_TRUE, 0, half, result, 0, NULL, NULL));
  app_dump("sub1", result, half);
  CHECK(clEnqueueReadBuffer(q, bb, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL));
  app_dump("parent", result, sizeof result);
  /* A launch over the whole parent, then reads through each sub-buffer. */
  set_twice(twice, bb, 1.0f);
  CHECK(clEnqueueNDRangeKernel(q, twice, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, sub0, CL_TRUE, 0, half, result, 0, NULL, NULL));
  app_dump("sub0_after_parent_launch", result, half);
  CHECK(clEnqueueReadBuffer(q, sub1, CL_TRUE, 64, half - 128, result, 0, NULL, NULL));
  app_dump("sub1_after_parent_launch", result, half - 128);
  {
    cl_mem assoc = NULL;
    size_t offset = 0, size = 0;
    void* host_ptr = NULL;
    CHECK(clGetMemObjectInfo(sub1, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL));
    CHECK(clGetMemObjectInfo(sub1, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
    CHECK(clGetMemObjectInfo(sub1, CL_MEM_SIZE, sizeof size, &size, NULL));
    CHECK(clGetMemObjectInfo(ba, CL_MEM_HOST_PTR, sizeof host_ptr, &host_ptr, NULL));
    app_print("sub1_parent_is_bb", assoc == bb);
    app_print("sub1_offset", (long long)offset);
    app_print("sub1_size", (long long)size);
    app_print("ba_host_ptr_is_host_a", host_ptr == (void*)host_a);
  }

  /* Rect writes, 2D kernel, rect read, rect copy, plain copy. */
  for (i = 0; i < MW * MH; ++i) matrix[i] = i;
  for (i = 0; i < 16 * 8; ++i) block[i] = -1000 - i;
  bm = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof matrix, matrix, &err);
  CHECK_ERR(err);
  {
    size_t borigin[3] = {5 * sizeof(cl_int), 9, 0}, horigin[3] = {0, 0, 0};
    size_t region[3] = {16 * sizeof(cl_int), 8, 1};
    CHECK(clEnqueueWriteBufferRect(q, bm, CL_FALSE, borigin, horigin, region,
                                   MW * sizeof(cl_int), 0, 16 * sizeof(cl_int), 0, block, 0,
                                   NULL, NULL));
  }
  CHECK(clSetKernelArg(inc2d, 0, sizeof bm, &bm));
  CHECK(clSetKernelArg(inc2d, 1, sizeof pitch, &pitch));
  CHECK(clSetKernelArg(inc2d, 2, sizeof step, &step));
  CHECK(clEnqueueNDRangeKernel(q, inc2d, 2, NULL, g2, NULL, 0, NULL, NULL));
  {
    size_t borigin[3] = {3 * sizeof(cl_int), 7, 0}, horigin[3] = {0, 0, 0};
    size_t region[3] = {20 * sizeof(cl_int), 10, 1};
    CHECK(clEnqueueReadBufferRect(q, bm, CL_TRUE, borigin, horigin, region, MW * sizeof(cl_int),
                                  0, 20 * sizeof(cl_int), 0, window, 0, NULL, NULL));
    app_dump("rect_window", window, sizeof window);
  }
  bm2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof matrix, NULL, &err);
  CHECK_ERR(err);
  CHECK(clEnqueueFillBuffer(q, bm2, &pattern8, sizeof pattern8, 0, sizeof matrix, 0, NULL, NULL));
  {
    size_t src_origin[3] = {0, 0, 0}, dst_origin[3] = {32 * sizeof(cl_int), 40, 0};
    size_t region[3] = {24 * sizeof(cl_int), 20, 1};
    CHECK(clEnqueueCopyBufferRect(q, bm, bm2, src_origin, dst_origin, region, MW * sizeof(cl_int),
                                  0, MW * sizeof(cl_int), 0, 0, NULL, NULL));
  }
  step = 2;
  CHECK(clSetKernelArg(inc2d, 0, sizeof bm2, &bm2));
  CHECK(clSetKernelArg(inc2d, 2, sizeof step, &step));
  CHECK(clEnqueueNDRangeKernel(q, inc2d, 2, NULL, g2, NULL, 0, NULL, NULL));
  bc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof matrix, NULL, &err);
  CHECK_ERR(err);
  CHECK(clEnqueueCopyBuffer(q, bm2, bc, 0, 0, sizeof matrix, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bc, CL_TRUE, 0, sizeof matrix, matrix, 0, NULL, NULL));
  app_dump("copied", matrix, sizeof matrix);
  CHECK(clEnqueueReadBuffer(q, bm, CL_TRUE, 0, sizeof matrix, matrix, 0, NULL, NULL));
  app_dump("matrix", matrix, sizeof matrix);

  /* A USE_HOST_PTR map returns a pointer into the host memory (OpenCL 1.2,
   * 5.4.2), which then holds the buffer's content. */
  mapped = (float*)clEnqueueMapBuffer(q, ba, CL_TRUE, CL_MAP_READ, 0, sizeof host_a, 0, NULL,
                                      NULL, &err);
  CHECK_ERR(err);
  app_print("map_is_host_ptr", mapped == host_a);
  app_dump("host_a_while_mapped", host_a, sizeof host_a);
  CHECK(clEnqueueUnmapMemObject(q, ba, mapped, 0, NULL, NULL));
  /* A launch, then a blocking read INTO the buffer's own host_ptr once
   * nothing else uses the buffer (defined by OpenCL 1.2, 5.2.2). */
  set_twice(twice, ba, 0.125f);
  CHECK(clEnqueueNDRangeKernel(q, twice, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clFinish(q));
  CHECK(clEnqueueReadBuffer(q, ba, CL_TRUE, 0, sizeof host_a, host_a, 0, NULL, NULL));
  app_dump("read_into_own_host_ptr", host_a, sizeof host_a);
  CHECK(clFinish(q));

  clReleaseMemObject(sub0);
  clReleaseMemObject(sub1);
  clReleaseMemObject(ba);
  clReleaseMemObject(bb);
  clReleaseMemObject(bm);
  clReleaseMemObject(bm2);
  clReleaseMemObject(bc);
  clReleaseKernel(twice);
  clReleaseKernel(inc2d);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
