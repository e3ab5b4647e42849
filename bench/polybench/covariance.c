// covariance: data is N samples x M variables. Kernels: column means (one
// work-item per variable), centring (one per element), covariance matrix
// (one per (j1, j2) pair).
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void cov_mean(__global float* mean, __global const float* data, int n, int m) {
  int j = get_global_id(0);
  if (j >= m) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += data[i * m + j];
  mean[j] = sum / (float)n;
}
__kernel void cov_center(__global float* centered, __global const float* data,
                         __global const float* mean, int n, int m) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i >= n || j >= m) return;
  centered[i * m + j] = data[i * m + j] - mean[j];
}
__kernel void cov_matrix(__global float* cov, __global const float* centered, int n, int m) {
  int j2 = get_global_id(0);
  int j1 = get_global_id(1);
  if (j1 >= m || j2 >= m) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += centered[i * m + j1] * centered[i * m + j2];
  cov[j1 * m + j2] = sum / (float)(n - 1);
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "covariance", 10);
  const int n = BENCH_PRESET(opts, 160, 640, 1600);  // samples
  const int m = BENCH_PRESET(opts, 128, 512, 1536);  // variables
  const size_t data_bytes = (size_t)n * m * sizeof(float);
  const size_t cov_bytes = (size_t)m * m * sizeof(float);
  float* data = malloc(data_bytes);
  float* cov = malloc(cov_bytes);
  bench_fill(data, (size_t)n * m, 81, 0, 1);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k_mean = bench_kernel(program, "cov_mean");
  cl_kernel k_center = bench_kernel(program, "cov_center");
  cl_kernel k_cov = bench_kernel(program, "cov_matrix");
  cl_mem buf_data = bench_buffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, data_bytes, data);
  cl_mem buf_mean = bench_buffer(cl.context, CL_MEM_READ_WRITE, m * sizeof(float), NULL);
  cl_mem buf_centered = bench_buffer(cl.context, CL_MEM_READ_WRITE, data_bytes, NULL);
  cl_mem buf_cov = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, cov_bytes, NULL);
  BENCH_ARG(k_mean, 0, buf_mean);
  BENCH_ARG(k_mean, 1, buf_data);
  BENCH_ARG(k_mean, 2, n);
  BENCH_ARG(k_mean, 3, m);
  BENCH_ARG(k_center, 0, buf_centered);
  BENCH_ARG(k_center, 1, buf_data);
  BENCH_ARG(k_center, 2, buf_mean);
  BENCH_ARG(k_center, 3, n);
  BENCH_ARG(k_center, 4, m);
  BENCH_ARG(k_cov, 0, buf_cov);
  BENCH_ARG(k_cov, 1, buf_centered);
  BENCH_ARG(k_cov, 2, n);
  BENCH_ARG(k_cov, 3, m);

  const size_t local1 = 64, global1 = bench_round_up(m, local1);
  const size_t local2[2] = {16, 16};
  const size_t global_center[2] = {bench_round_up(m, 16), bench_round_up(n, 16)};
  const size_t global_cov[2] = {bench_round_up(m, 16), bench_round_up(m, 16)};
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_mean, 1, NULL, &global1, &local1, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_center, 2, NULL, global_center, local2, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_cov, 2, NULL, global_cov, local2, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_cov, CL_TRUE, 0, cov_bytes, cov, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    float* mean = calloc(m, sizeof(float));
    float* centered = malloc(data_bytes);
    float* ref = malloc(cov_bytes);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) mean[j] += data[i * m + j];
    for (int j = 0; j < m; ++j) mean[j] /= (float)n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) centered[i * m + j] = data[i * m + j] - mean[j];
    for (int j1 = 0; j1 < m; ++j1)
      for (int j2 = 0; j2 < m; ++j2) {
        float sum = 0.0f;
        for (int i = 0; i < n; ++i) sum += centered[i * m + j1] * centered[i * m + j2];
        ref[j1 * m + j2] = sum / (float)(n - 1);
      }
    ok = bench_compare("cov", cov, ref, (size_t)m * m, 1e-3, 1e-3 * bench_max_abs(ref, (size_t)m * m));
    free(mean); free(centered); free(ref);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_data);
  clReleaseMemObject(buf_mean);
  clReleaseMemObject(buf_centered);
  clReleaseMemObject(buf_cov);
  clReleaseKernel(k_mean);
  clReleaseKernel(k_center);
  clReleaseKernel(k_cov);
  clReleaseProgram(program);
  bench_close(&cl);
  free(data); free(cov); free(iter_ms);
  return status;
}
