/* The host cost of a kernel launch as the app sees it: the time spent in
 * clEnqueueNDRangeKernel, natively and under the shim (issue 23: a split
 * launch should cost the host at most ~30 us more than the enqueues of its
 * sub-kernels).
 *
 *   launch_cost [--device N] [--items N] [--iters N] [--finish-every K] [--event]
 *               [--profiling] [--flush] [--warmup-ms MS]
 *
 * An axpy over N floats, launched N times with no event kept (--event: the
 * app keeps each launch's event and releases it), clFinish every K
 * launches. Prints the median and 90th percentile of the enqueue's host
 * time, and the wall time per launch (enqueues and finishes), after an
 * untimed first tenth. --device numbers the devices of all platforms.
 * --profiling: the queue has CL_QUEUE_PROFILING_ENABLE (as the shim's own
 * device queues do); --flush: clFlush after every launch (as the shim does).
 * --warmup-ms: first launches the same kernel on a scratch buffer for MS ms,
 * untimed (under the shim the other GPUs open in the background meanwhile:
 * on 4 H100 ~0.45 s, longer than 60000 short launches). */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include "bench.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char* kSource =
    "__kernel void axpy(__global float* y, __global const float* x, float a) {\n"
    "  size_t i = get_global_id(0); y[i] = a * x[i] + y[i]; }\n";

int main(int argc, char** argv) {
  unsigned device_index = 0, iters = 2000, finish_every = 1, keep_event = 0, profiling = 0, flush = 0;
  double warmup_ms = 0;
  size_t items = 1 << 20;
  for (int i = 1; i < argc; ++i) {
    const char* next = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(argv[i], "--device")) device_index = (unsigned)atoi(next), ++i;
    else if (!strcmp(argv[i], "--items")) items = (size_t)atoll(next), ++i;
    else if (!strcmp(argv[i], "--iters")) iters = (unsigned)atoi(next), ++i;
    else if (!strcmp(argv[i], "--finish-every")) finish_every = (unsigned)atoi(next), ++i;
    else if (!strcmp(argv[i], "--event")) keep_event = 1;
    else if (!strcmp(argv[i], "--profiling")) profiling = 1;
    else if (!strcmp(argv[i], "--flush")) flush = 1;
    else if (!strcmp(argv[i], "--warmup-ms")) warmup_ms = atof(next), ++i;
    else {
      fprintf(stderr,
              "usage: %s [--device N] [--items N] [--iters N] [--finish-every K] [--event] [--profiling] [--flush] "
              "[--warmup-ms MS]\n",
              argv[0]);
      return 2;
    }
  }
  if (iters < 10 || finish_every == 0 || items == 0 || items % 256) {
    fprintf(stderr, "iters >= 10, finish-every >= 1, items a multiple of 256\n");
    return 2;
  }
  cl_device_id device = bench_pick_device((int)device_index);
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  BENCH_CL(err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
  BENCH_CL(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, NULL, &err);
  BENCH_CL(err);
  BENCH_CL(clBuildProgram(prog, 1, &device, "", NULL, NULL));
  cl_kernel k = clCreateKernel(prog, "axpy", &err);
  BENCH_CL(err);
  float* host = malloc(items * sizeof(float));
  for (size_t i = 0; i < items; ++i) host[i] = (float)(i % 1000) * 0.001f;
  cl_mem x = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, items * sizeof(float), host, &err);
  BENCH_CL(err);
  cl_mem y = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, items * sizeof(float), host, &err);
  BENCH_CL(err);
  const float a = 0.5f;
  BENCH_CL(clSetKernelArg(k, 0, sizeof y, &y));
  BENCH_CL(clSetKernelArg(k, 1, sizeof x, &x));
  BENCH_CL(clSetKernelArg(k, 2, sizeof a, &a));
  const size_t local = 256;
  if (warmup_ms > 0) {
    cl_mem scratch = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, items * sizeof(float), host, &err);
    BENCH_CL(err);
    BENCH_CL(clSetKernelArg(k, 0, sizeof scratch, &scratch));
    const double until = bench_now_ms() + warmup_ms;
    for (unsigned i = 1; bench_now_ms() < until; ++i) {
      BENCH_CL(clEnqueueNDRangeKernel(q, k, 1, NULL, &items, &local, 0, NULL, NULL));
      if (i % finish_every == 0) BENCH_CL(clFinish(q));
    }
    BENCH_CL(clFinish(q));
    BENCH_CL(clSetKernelArg(k, 0, sizeof y, &y));
    clReleaseMemObject(scratch);
  }
  double* enqueue = malloc(iters * sizeof(double));
  const unsigned skip = iters / 10;
  double wall_start = 0;
  for (unsigned i = 0; i < iters; ++i) {
    if (i == skip) wall_start = (bench_now_ms() * 1e3);
    cl_event e = NULL;
    const double t = (bench_now_ms() * 1e3);
    BENCH_CL(clEnqueueNDRangeKernel(q, k, 1, NULL, &items, &local, 0, NULL, keep_event ? &e : NULL));
    enqueue[i] = (bench_now_ms() * 1e3) - t;
    if (flush) BENCH_CL(clFlush(q));
    if (e) clReleaseEvent(e);
    if ((i + 1) % finish_every == 0) BENCH_CL(clFinish(q));
  }
  BENCH_CL(clFinish(q));
  const double wall = ((bench_now_ms() * 1e3) - wall_start) / (iters - skip);
  BENCH_CL(clEnqueueReadBuffer(q, y, CL_TRUE, 0, items * sizeof(float), host, 0, NULL, NULL));
  double sum = 0;
  for (size_t i = 0; i < items; ++i) sum += host[i];
  const unsigned n = iters - skip;
  const double p90 = bench_quantile(enqueue + skip, n, 0.9), median = bench_quantile(enqueue + skip, n, 0.5);
  printf("enqueue_us median %.1f p90 %.1f  wall_us_per_launch %.1f  checksum %.6e\n", median, p90, wall, sum);
  free(enqueue);
  free(host);
  return 0;
}
