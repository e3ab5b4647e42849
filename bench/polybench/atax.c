// atax: y = A^T (A x). Kernel 1: tmp = A x (one work-item per row);
// kernel 2: y = A^T tmp (one work-item per column).
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void atax_ax(__global float* tmp, __global const float* a,
                      __global const float* x, int m, int n) {
  int i = get_global_id(0);
  if (i >= m) return;
  float sum = 0.0f;
  for (int j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
  tmp[i] = sum;
}
__kernel void atax_aty(__global float* y, __global const float* a,
                       __global const float* tmp, int m, int n) {
  int j = get_global_id(0);
  if (j >= n) return;
  float sum = 0.0f;
  for (int i = 0; i < m; ++i) sum += a[i * n + j] * tmp[i];
  y[j] = sum;
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "atax", 10);
  const int m = BENCH_PRESET(opts, 1024, 4096, 12288);
  const int n = BENCH_PRESET(opts, 1280, 5120, 14336);
  float* a = malloc((size_t)m * n * sizeof(float));
  float* x = malloc(n * sizeof(float));
  float* y = malloc(n * sizeof(float));
  bench_fill(a, (size_t)m * n, 21, 0, 1);
  bench_fill(x, n, 22, 0, 1);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k_ax = bench_kernel(program, "atax_ax");
  cl_kernel k_aty = bench_kernel(program, "atax_aty");
  const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl_mem buf_a = bench_buffer(cl.context, in, (size_t)m * n * sizeof(float), a);
  cl_mem buf_x = bench_buffer(cl.context, in, n * sizeof(float), x);
  cl_mem buf_tmp = bench_buffer(cl.context, CL_MEM_READ_WRITE, m * sizeof(float), NULL);
  cl_mem buf_y = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, n * sizeof(float), NULL);
  BENCH_ARG(k_ax, 0, buf_tmp);
  BENCH_ARG(k_ax, 1, buf_a);
  BENCH_ARG(k_ax, 2, buf_x);
  BENCH_ARG(k_ax, 3, m);
  BENCH_ARG(k_ax, 4, n);
  BENCH_ARG(k_aty, 0, buf_y);
  BENCH_ARG(k_aty, 1, buf_a);
  BENCH_ARG(k_aty, 2, buf_tmp);
  BENCH_ARG(k_aty, 3, m);
  BENCH_ARG(k_aty, 4, n);

  const size_t local = 64;
  const size_t global_rows = bench_round_up(m, local), global_cols = bench_round_up(n, local);
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_ax, 1, NULL, &global_rows, &local, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_aty, 1, NULL, &global_cols, &local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_y, CL_TRUE, 0, n * sizeof(float), y, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    float* tmp = malloc(m * sizeof(float));
    float* ref = calloc(n, sizeof(float));
    for (int i = 0; i < m; ++i) {
      float sum = 0.0f;
      for (int j = 0; j < n; ++j) sum += a[(size_t)i * n + j] * x[j];
      tmp[i] = sum;
    }
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) ref[j] += a[(size_t)i * n + j] * tmp[i];
    ok = bench_compare("y", y, ref, n, 1e-3, 0);
    free(tmp); free(ref);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_a);
  clReleaseMemObject(buf_x);
  clReleaseMemObject(buf_tmp);
  clReleaseMemObject(buf_y);
  clReleaseKernel(k_ax);
  clReleaseKernel(k_aty);
  clReleaseProgram(program);
  bench_close(&cl);
  free(a); free(x); free(y); free(iter_ms);
  return status;
}
