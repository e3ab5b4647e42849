// gesummv: y = alpha*A*x + beta*B*x, one work-item per row.
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void gesummv(__global float* y, __global const float* a,
                      __global const float* b, __global const float* x,
                      float alpha, float beta, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float sum_a = 0.0f, sum_b = 0.0f;
  for (int j = 0; j < n; ++j) {
    sum_a += a[i * n + j] * x[j];
    sum_b += b[i * n + j] * x[j];
  }
  y[i] = alpha * sum_a + beta * sum_b;
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "gesummv", 10);
  const int n = BENCH_PRESET(opts, 1024, 4096, 12288);
  const size_t count = (size_t)n * n;
  const float alpha = 1.5f, beta = 1.2f;
  float* a = malloc(count * sizeof(float));
  float* b = malloc(count * sizeof(float));
  float* x = malloc(n * sizeof(float));
  float* y = malloc(n * sizeof(float));
  bench_fill(a, count, 41, 0, 1);
  bench_fill(b, count, 42, 0, 1);
  bench_fill(x, n, 43, 0, 1);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k = bench_kernel(program, "gesummv");
  const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl_mem buf_a = bench_buffer(cl.context, in, count * sizeof(float), a);
  cl_mem buf_b = bench_buffer(cl.context, in, count * sizeof(float), b);
  cl_mem buf_x = bench_buffer(cl.context, in, n * sizeof(float), x);
  cl_mem buf_y = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, n * sizeof(float), NULL);
  BENCH_ARG(k, 0, buf_y);
  BENCH_ARG(k, 1, buf_a);
  BENCH_ARG(k, 2, buf_b);
  BENCH_ARG(k, 3, buf_x);
  BENCH_ARG(k, 4, alpha);
  BENCH_ARG(k, 5, beta);
  BENCH_ARG(k, 6, n);

  const size_t local = 64, global = bench_round_up(n, local);
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_y, CL_TRUE, 0, n * sizeof(float), y, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    float* ref = malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) {
      float sum_a = 0.0f, sum_b = 0.0f;
      for (int j = 0; j < n; ++j) {
        sum_a += a[(size_t)i * n + j] * x[j];
        sum_b += b[(size_t)i * n + j] * x[j];
      }
      ref[i] = alpha * sum_a + beta * sum_b;
    }
    ok = bench_compare("y", y, ref, n, 1e-3, 0);
    free(ref);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_a);
  clReleaseMemObject(buf_b);
  clReleaseMemObject(buf_x);
  clReleaseMemObject(buf_y);
  clReleaseKernel(k);
  clReleaseProgram(program);
  bench_close(&cl);
  free(a); free(b); free(x); free(y); free(iter_ms);
  return status;
}
