/* atomics: kernels whose global atomics make the work-groups depend on each
 * other. libsplit must not split them (except the histogram, whose
 * atomic_inc is a reduction: tests/apps/src/reductions.c), yet the results
 * must be right.
 * Integer atomics only, so the results do not depend on the order.
 * Covers: atomic_inc histogram, atomic_add / atomic_max / atomic_min into a
 * few global counters, atomic_cmpxchg-based "first writer" flags (the value
 * stored is the same whoever wins), and a plain kernel after them. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void histogram(__global const uint* in, __global uint* bins, uint nbins) {\n"
    "  atomic_inc(&bins[in[get_global_id(0)] % nbins]);\n"
    "}\n"
    "__kernel void stats(__global const int* in, __global int* acc) {\n"
    "  int v = in[get_global_id(0)];\n"
    "  atomic_add(&acc[0], v);\n"
    "  atomic_max(&acc[1], v);\n"
    "  atomic_min(&acc[2], v);\n"
    "  if (v < 0) atomic_inc(&acc[3]);\n"
    "}\n"
    "__kernel void mark_seen(__global const uint* in, __global int* seen, uint n) {\n"
    "  uint key = in[get_global_id(0)] % n;\n"
    "  atomic_cmpxchg(&seen[key], 0, (int)key + 1);\n"
    "}\n"
    "__kernel void scale_bins(__global const uint* bins, __global float* out, float scale) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = (float)bins[i] * scale;\n"
    "}\n";

enum { N = 1 << 15, BINS = 256, SEEN = 40000 };

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel hist, stats, mark, norm;
  static cl_uint in[N], bins[BINS];
  static cl_int sin[N], seen[SEEN];
  static float normed[BINS];
  cl_int acc[4] = {0, -2147483647 - 1, 2147483647, 0};
  cl_uint nbins = BINS, nseen = SEEN, zero = 0;
  float scale = 1.0f / 128.0f;
  cl_mem bin, bbins, bsin, bacc, bseen, bnorm;
  size_t global = N, local = 64, gbins = BINS;
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, "");
  hist = app_kernel(prog, "histogram");
  stats = app_kernel(prog, "stats");
  mark = app_kernel(prog, "mark_seen");
  norm = app_kernel(prog, "scale_bins");

  for (i = 0; i < N; ++i) {
    in[i] = app_rand() % 100000u;
    sin[i] = (cl_int)(app_rand() % 20001u) - 10000;
  }
  bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  CHECK_ERR(err);
  bbins = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof bins, NULL, &err);
  CHECK_ERR(err);
  bsin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof sin, sin, &err);
  CHECK_ERR(err);
  bacc = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof acc, acc, &err);
  CHECK_ERR(err);
  bseen = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof seen, NULL, &err);
  CHECK_ERR(err);
  bnorm = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof normed, NULL, &err);
  CHECK_ERR(err);

  CHECK(clEnqueueFillBuffer(q, bbins, &zero, sizeof zero, 0, sizeof bins, 0, NULL, NULL));
  CHECK(clSetKernelArg(hist, 0, sizeof bin, &bin));
  CHECK(clSetKernelArg(hist, 1, sizeof bbins, &bbins));
  CHECK(clSetKernelArg(hist, 2, sizeof nbins, &nbins));
  CHECK(clEnqueueNDRangeKernel(q, hist, 1, NULL, &global, &local, 0, NULL, NULL));
  /* The same histogram again on top: bins double. */
  CHECK(clEnqueueNDRangeKernel(q, hist, 1, NULL, &global, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bbins, CL_TRUE, 0, sizeof bins, bins, 0, NULL, NULL));
  app_dump("histogram", bins, sizeof bins);

  CHECK(clSetKernelArg(stats, 0, sizeof bsin, &bsin));
  CHECK(clSetKernelArg(stats, 1, sizeof bacc, &bacc));
  CHECK(clEnqueueNDRangeKernel(q, stats, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bacc, CL_TRUE, 0, sizeof acc, acc, 0, NULL, NULL));
  app_dump("stats", acc, sizeof acc);

  CHECK(clEnqueueFillBuffer(q, bseen, &zero, sizeof zero, 0, sizeof seen, 0, NULL, NULL));
  CHECK(clSetKernelArg(mark, 0, sizeof bin, &bin));
  CHECK(clSetKernelArg(mark, 1, sizeof bseen, &bseen));
  CHECK(clSetKernelArg(mark, 2, sizeof nseen, &nseen));
  CHECK(clEnqueueNDRangeKernel(q, mark, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bseen, CL_TRUE, 0, sizeof seen, seen, 0, NULL, NULL));
  app_dump("seen", seen, sizeof seen);

  CHECK(clSetKernelArg(norm, 0, sizeof bbins, &bbins));
  CHECK(clSetKernelArg(norm, 1, sizeof bnorm, &bnorm));
  CHECK(clSetKernelArg(norm, 2, sizeof scale, &scale));
  CHECK(clEnqueueNDRangeKernel(q, norm, 1, NULL, &gbins, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bnorm, CL_TRUE, 0, sizeof normed, normed, 0, NULL, NULL));
  app_dump("normalized", normed, sizeof normed);

  clReleaseMemObject(bin);
  clReleaseMemObject(bbins);
  clReleaseMemObject(bsin);
  clReleaseMemObject(bacc);
  clReleaseMemObject(bseen);
  clReleaseMemObject(bnorm);
  clReleaseKernel(hist);
  clReleaseKernel(stats);
  clReleaseKernel(mark);
  clReleaseKernel(norm);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
