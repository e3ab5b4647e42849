// bicg: the two products of BiCG, q = A p (one work-item per row) and
// s = A^T r (one work-item per column).
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void bicg_q(__global float* q, __global const float* a,
                     __global const float* p, int n, int m) {
  int i = get_global_id(0);
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = 0; j < m; ++j) sum += a[i * m + j] * p[j];
  q[i] = sum;
}
__kernel void bicg_s(__global float* s, __global const float* a,
                     __global const float* r, int n, int m) {
  int j = get_global_id(0);
  if (j >= m) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += r[i] * a[i * m + j];
  s[j] = sum;
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "bicg", 10);
  const int n = BENCH_PRESET(opts, 1280, 5120, 14336);  // rows
  const int m = BENCH_PRESET(opts, 1024, 4096, 12288);  // columns
  float* a = malloc((size_t)n * m * sizeof(float));
  float* p = malloc(m * sizeof(float));
  float* r = malloc(n * sizeof(float));
  float* q = malloc(n * sizeof(float));
  float* s = malloc(m * sizeof(float));
  bench_fill(a, (size_t)n * m, 31, 0, 1);
  bench_fill(p, m, 32, 0, 1);
  bench_fill(r, n, 33, 0, 1);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k_q = bench_kernel(program, "bicg_q");
  cl_kernel k_s = bench_kernel(program, "bicg_s");
  const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl_mem buf_a = bench_buffer(cl.context, in, (size_t)n * m * sizeof(float), a);
  cl_mem buf_p = bench_buffer(cl.context, in, m * sizeof(float), p);
  cl_mem buf_r = bench_buffer(cl.context, in, n * sizeof(float), r);
  cl_mem buf_q = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, n * sizeof(float), NULL);
  cl_mem buf_s = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, m * sizeof(float), NULL);
  BENCH_ARG(k_q, 0, buf_q);
  BENCH_ARG(k_q, 1, buf_a);
  BENCH_ARG(k_q, 2, buf_p);
  BENCH_ARG(k_q, 3, n);
  BENCH_ARG(k_q, 4, m);
  BENCH_ARG(k_s, 0, buf_s);
  BENCH_ARG(k_s, 1, buf_a);
  BENCH_ARG(k_s, 2, buf_r);
  BENCH_ARG(k_s, 3, n);
  BENCH_ARG(k_s, 4, m);

  const size_t local = 64;
  const size_t global_rows = bench_round_up(n, local), global_cols = bench_round_up(m, local);
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_q, 1, NULL, &global_rows, &local, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_s, 1, NULL, &global_cols, &local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_q, CL_TRUE, 0, n * sizeof(float), q, 0, NULL, NULL));
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_s, CL_TRUE, 0, m * sizeof(float), s, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    float* ref_q = malloc(n * sizeof(float));
    float* ref_s = calloc(m, sizeof(float));
    for (int i = 0; i < n; ++i) {
      float sum = 0.0f;
      for (int j = 0; j < m; ++j) sum += a[(size_t)i * m + j] * p[j];
      ref_q[i] = sum;
      for (int j = 0; j < m; ++j) ref_s[j] += r[i] * a[(size_t)i * m + j];
    }
    ok = bench_compare("q", q, ref_q, n, 1e-3, 0);
    ok = bench_compare("s", s, ref_s, m, 1e-3, 0) && ok;
    free(ref_q); free(ref_s);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  cl_mem buffers[] = {buf_a, buf_p, buf_r, buf_q, buf_s};
  for (size_t i = 0; i < sizeof buffers / sizeof *buffers; ++i) clReleaseMemObject(buffers[i]);
  clReleaseKernel(k_q);
  clReleaseKernel(k_s);
  clReleaseProgram(program);
  bench_close(&cl);
  free(a); free(p); free(r); free(q); free(s); free(iter_ms);
  return status;
}
