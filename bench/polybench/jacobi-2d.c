// jacobi-2d: per time step, B = 5-point average of A over the interior
// (stencil kernel), then A = B over the interior (copy kernel).
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void jacobi2d_stencil(__global float* b, __global const float* a, int n) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i < 1 || i >= n - 1 || j < 1 || j >= n - 1) return;
  b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] +
                         a[(i - 1) * n + j] + a[(i + 1) * n + j]);
}
__kernel void jacobi2d_copy(__global float* a, __global const float* b, int n) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i < 1 || i >= n - 1 || j < 1 || j >= n - 1) return;
  a[i * n + j] = b[i * n + j];
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "jacobi-2d", 20);
  const int n = BENCH_PRESET(opts, 256, 2048, 6144);
  const size_t count = (size_t)n * n, bytes = count * sizeof(float);
  float* a = malloc(bytes);
  float* b = malloc(bytes);
  bench_fill(a, count, 111, 0, 1);
  memcpy(b, a, bytes);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k_stencil = bench_kernel(program, "jacobi2d_stencil");
  cl_kernel k_copy = bench_kernel(program, "jacobi2d_copy");
  cl_mem buf_a = bench_buffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, a);
  cl_mem buf_b = bench_buffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, b);
  BENCH_ARG(k_stencil, 0, buf_b);
  BENCH_ARG(k_stencil, 1, buf_a);
  BENCH_ARG(k_stencil, 2, n);
  BENCH_ARG(k_copy, 0, buf_a);
  BENCH_ARG(k_copy, 1, buf_b);
  BENCH_ARG(k_copy, 2, n);

  const size_t local[2] = {16, 16};
  const size_t global[2] = {bench_round_up(n, 16), bench_round_up(n, 16)};
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_stencil, 2, NULL, global, local, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_copy, 2, NULL, global, local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  float* out = malloc(bytes);
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_a, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
  bench_dump(&opts, out, bytes);

  int ok = 1;
  if (opts.check) {
    for (int it = 0; it < opts.iters; ++it) {
      for (int i = 1; i < n - 1; ++i)
        for (int j = 1; j < n - 1; ++j)
          b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] +
                                 a[(i - 1) * n + j] + a[(i + 1) * n + j]);
      for (int i = 1; i < n - 1; ++i)
        for (int j = 1; j < n - 1; ++j) a[i * n + j] = b[i * n + j];
    }
    ok = bench_compare("A", out, a, count, 1e-4, 1e-5);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_a);
  clReleaseMemObject(buf_b);
  clReleaseKernel(k_stencil);
  clReleaseKernel(k_copy);
  clReleaseProgram(program);
  bench_close(&cl);
  free(a); free(b); free(out); free(iter_ms);
  return status;
}
