// syr2k: C_out = alpha*(A*B^T + B*A^T) + beta*C (full N x N result), one
// work-item per element.
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void syr2k(__global float* c_out, __global const float* a, __global const float* b,
                   __global const float* c, float alpha, float beta, int n, int m) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i >= n || j >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < m; ++k) sum += a[i * m + k] * b[j * m + k] + b[i * m + k] * a[j * m + k];
  c_out[i * n + j] = alpha * sum + beta * c[i * n + j];
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "syr2k", 10);
  const int n = BENCH_PRESET(opts, 128, 768, 2048);
  const int m = BENCH_PRESET(opts, 96, 512, 1280);
  const float alpha = 1.5f, beta = 1.2f;
  float* a = malloc((size_t)n * m * sizeof(float));
  float* c = malloc((size_t)n * n * sizeof(float));
  float* out = malloc((size_t)n * n * sizeof(float));
  float* b = malloc((size_t)n * m * sizeof(float));
  bench_fill(a, (size_t)n * m, 71, 0, 1);
  bench_fill(b, (size_t)n * m, 73, 0, 1);
  bench_fill(c, (size_t)n * n, 72, 0, 1);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k = bench_kernel(program, "syr2k");
  const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl_mem buf_a = bench_buffer(cl.context, in, (size_t)n * m * sizeof(float), a);
  cl_mem buf_b = bench_buffer(cl.context, in, (size_t)n * m * sizeof(float), b);
  cl_mem buf_c = bench_buffer(cl.context, in, (size_t)n * n * sizeof(float), c);
  cl_mem buf_out = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, (size_t)n * n * sizeof(float), NULL);
  BENCH_ARG(k, 0, buf_out);
  BENCH_ARG(k, 1, buf_a);
  BENCH_ARG(k, 2, buf_b);
  BENCH_ARG(k, 3, buf_c);
  BENCH_ARG(k, 4, alpha);
  BENCH_ARG(k, 5, beta);
  BENCH_ARG(k, 6, n);
  BENCH_ARG(k, 7, m);

  const size_t local[2] = {16, 16};
  const size_t global[2] = {bench_round_up(n, 16), bench_round_up(n, 16)};
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double total_ms = bench_time_kernel(&cl, k, 2, global, local, opts.iters, iter_ms);
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_out, CL_TRUE, 0, (size_t)n * n * sizeof(float), out, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    float* ref = malloc((size_t)n * n * sizeof(float));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        float sum = 0.0f;
        for (int kk = 0; kk < m; ++kk) sum += a[i * m + kk] * b[j * m + kk] + b[i * m + kk] * a[j * m + kk];
        ref[i * n + j] = alpha * sum + beta * c[i * n + j];
      }
    ok = bench_compare("C", out, ref, (size_t)n * n, 1e-3, 0);
    free(ref);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_a);
  clReleaseMemObject(buf_b);
  clReleaseMemObject(buf_c);
  clReleaseMemObject(buf_out);
  clReleaseKernel(k);
  clReleaseProgram(program);
  bench_close(&cl);
  free(a); free(b); free(c); free(out); free(iter_ms);
  return status;
}
