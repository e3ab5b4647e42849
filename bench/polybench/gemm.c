// gemm: C_out = alpha*A*B + beta*C, one work-item per element of C_out.
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void gemm(__global float* c_out, __global const float* a,
                   __global const float* b, __global const float* c,
                   float alpha, float beta, int ni, int nj, int nk) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i >= ni || j >= nj) return;
  float sum = 0.0f;
  for (int k = 0; k < nk; ++k) sum += a[i * nk + k] * b[k * nj + j];
  c_out[i * nj + j] = alpha * sum + beta * c[i * nj + j];
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "gemm", 10);
  const int n = BENCH_PRESET(opts, 128, 768, 2048);
  const size_t count = (size_t)n * n, bytes = count * sizeof(float);
  const float alpha = 1.5f, beta = 1.2f;
  float* a = malloc(bytes);
  float* b = malloc(bytes);
  float* c = malloc(bytes);
  float* out = malloc(bytes);
  bench_fill(a, count, 61, 0, 1);
  bench_fill(b, count, 62, 0, 1);
  bench_fill(c, count, 63, 0, 1);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k = bench_kernel(program, "gemm");
  const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl_mem buf_a = bench_buffer(cl.context, in, bytes, a);
  cl_mem buf_b = bench_buffer(cl.context, in, bytes, b);
  cl_mem buf_c = bench_buffer(cl.context, in, bytes, c);
  cl_mem buf_out = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, bytes, NULL);
  BENCH_ARG(k, 0, buf_out);
  BENCH_ARG(k, 1, buf_a);
  BENCH_ARG(k, 2, buf_b);
  BENCH_ARG(k, 3, buf_c);
  BENCH_ARG(k, 4, alpha);
  BENCH_ARG(k, 5, beta);
  BENCH_ARG(k, 6, n);
  BENCH_ARG(k, 7, n);
  BENCH_ARG(k, 8, n);

  const size_t local[2] = {16, 16};
  const size_t global[2] = {bench_round_up(n, 16), bench_round_up(n, 16)};
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double total_ms = bench_time_kernel(&cl, k, 2, global, local, opts.iters, iter_ms);
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_out, CL_TRUE, 0, bytes, out, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    float* ref = calloc(count, sizeof(float));
    for (int i = 0; i < n; ++i) {
      for (int kk = 0; kk < n; ++kk)
        for (int j = 0; j < n; ++j) ref[i * n + j] += a[i * n + kk] * b[kk * n + j];
      for (int j = 0; j < n; ++j) ref[i * n + j] = alpha * ref[i * n + j] + beta * c[i * n + j];
    }
    ok = bench_compare("C", out, ref, count, 1e-3, 0);
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
