// 2mm: D_out = beta*D + (alpha*A*B)*C, two matrix products, one kernel each.
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void mm_ab(__global float* tmp, __global const float* a,
                    __global const float* b, float alpha, int ni, int nj, int nk) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i >= ni || j >= nj) return;
  float sum = 0.0f;
  for (int k = 0; k < nk; ++k) sum += a[i * nk + k] * b[k * nj + j];
  tmp[i * nj + j] = alpha * sum;
}
__kernel void mm_tc(__global float* d_out, __global const float* tmp,
                    __global const float* c, __global const float* d, float beta,
                    int ni, int nl, int nj) {
  int l = get_global_id(0);
  int i = get_global_id(1);
  if (i >= ni || l >= nl) return;
  float sum = 0.0f;
  for (int j = 0; j < nj; ++j) sum += tmp[i * nj + j] * c[j * nl + l];
  d_out[i * nl + l] = beta * d[i * nl + l] + sum;
}
);

static void reference(float* d_out, const float* a, const float* b, const float* c,
                      const float* d, float alpha, float beta, int n) {
  float* tmp = calloc((size_t)n * n, sizeof *tmp);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j) tmp[i * n + j] += a[i * n + k] * b[k * n + j];
  for (int i = 0; i < n * n; ++i) tmp[i] *= alpha;
  for (int i = 0; i < n; ++i) {
    for (int l = 0; l < n; ++l) d_out[i * n + l] = 0.0f;
    for (int j = 0; j < n; ++j)
      for (int l = 0; l < n; ++l) d_out[i * n + l] += tmp[i * n + j] * c[j * n + l];
    for (int l = 0; l < n; ++l) d_out[i * n + l] += beta * d[i * n + l];
  }
  free(tmp);
}

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "2mm", 10);
  const int n = BENCH_PRESET(opts, 128, 512, 2048);
  const size_t count = (size_t)n * n, bytes = count * sizeof(float);
  const float alpha = 1.5f, beta = 1.2f;
  float* a = malloc(bytes);
  float* b = malloc(bytes);
  float* c = malloc(bytes);
  float* d = malloc(bytes);
  float* out = malloc(bytes);
  bench_fill(a, count, 1, 0, 1);
  bench_fill(b, count, 2, 0, 1);
  bench_fill(c, count, 3, 0, 1);
  bench_fill(d, count, 4, 0, 1);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k_ab = bench_kernel(program, "mm_ab");
  cl_kernel k_tc = bench_kernel(program, "mm_tc");
  const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl_mem buf_a = bench_buffer(cl.context, in, bytes, a);
  cl_mem buf_b = bench_buffer(cl.context, in, bytes, b);
  cl_mem buf_c = bench_buffer(cl.context, in, bytes, c);
  cl_mem buf_d = bench_buffer(cl.context, in, bytes, d);
  cl_mem buf_tmp = bench_buffer(cl.context, CL_MEM_READ_WRITE, bytes, NULL);
  cl_mem buf_out = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, bytes, NULL);
  BENCH_ARG(k_ab, 0, buf_tmp);
  BENCH_ARG(k_ab, 1, buf_a);
  BENCH_ARG(k_ab, 2, buf_b);
  BENCH_ARG(k_ab, 3, alpha);
  BENCH_ARG(k_ab, 4, n);
  BENCH_ARG(k_ab, 5, n);
  BENCH_ARG(k_ab, 6, n);
  BENCH_ARG(k_tc, 0, buf_out);
  BENCH_ARG(k_tc, 1, buf_tmp);
  BENCH_ARG(k_tc, 2, buf_c);
  BENCH_ARG(k_tc, 3, buf_d);
  BENCH_ARG(k_tc, 4, beta);
  BENCH_ARG(k_tc, 5, n);
  BENCH_ARG(k_tc, 6, n);
  BENCH_ARG(k_tc, 7, n);

  const size_t local[2] = {16, 16};
  const size_t global[2] = {bench_round_up(n, 16), bench_round_up(n, 16)};
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_ab, 2, NULL, global, local, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_tc, 2, NULL, global, local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_out, CL_TRUE, 0, bytes, out, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    float* ref = malloc(bytes);
    reference(ref, a, b, c, d, alpha, beta, n);
    ok = bench_compare("D", out, ref, count, 1e-3, 1e-4 * bench_max_abs(ref, count));
    free(ref);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  cl_mem buffers[] = {buf_a, buf_b, buf_c, buf_d, buf_tmp, buf_out};
  for (size_t i = 0; i < sizeof buffers / sizeof *buffers; ++i) clReleaseMemObject(buffers[i]);
  clReleaseKernel(k_ab);
  clReleaseKernel(k_tc);
  clReleaseProgram(program);
  bench_close(&cl);
  free(a); free(b); free(c); free(d); free(out); free(iter_ms);
  return status;
}
