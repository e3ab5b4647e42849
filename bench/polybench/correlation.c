// correlation: Pearson correlation matrix of M variables over N samples.
// Kernels: column means, column standard deviations (one work-item per
// variable), normalisation (one per element), correlation (one per pair).
#include <math.h>
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void corr_mean(__global float* mean, __global const float* data, int n, int m) {
  int j = get_global_id(0);
  if (j >= m) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += data[i * m + j];
  mean[j] = sum / (float)n;
}
__kernel void corr_stddev(__global float* stddev, __global const float* data,
                          __global const float* mean, int n, int m) {
  int j = get_global_id(0);
  if (j >= m) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    float d = data[i * m + j] - mean[j];
    sum += d * d;
  }
  float s = sqrt(sum / (float)n);
  stddev[j] = s <= 0.1f ? 1.0f : s;
}
__kernel void corr_normalize(__global float* normalized, __global const float* data,
                             __global const float* mean, __global const float* stddev,
                             int n, int m) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i >= n || j >= m) return;
  normalized[i * m + j] = (data[i * m + j] - mean[j]) / (sqrt((float)n) * stddev[j]);
}
__kernel void corr_matrix(__global float* corr, __global const float* normalized,
                          int n, int m) {
  int j2 = get_global_id(0);
  int j1 = get_global_id(1);
  if (j1 >= m || j2 >= m) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += normalized[i * m + j1] * normalized[i * m + j2];
  corr[j1 * m + j2] = j1 == j2 ? 1.0f : sum;
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "correlation", 10);
  const int n = BENCH_PRESET(opts, 160, 640, 1600);  // samples
  const int m = BENCH_PRESET(opts, 128, 512, 1536);  // variables
  const size_t data_bytes = (size_t)n * m * sizeof(float);
  const size_t corr_bytes = (size_t)m * m * sizeof(float);
  float* data = malloc(data_bytes);
  float* corr = malloc(corr_bytes);
  bench_fill(data, (size_t)n * m, 91, 0, 4);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k_mean = bench_kernel(program, "corr_mean");
  cl_kernel k_std = bench_kernel(program, "corr_stddev");
  cl_kernel k_norm = bench_kernel(program, "corr_normalize");
  cl_kernel k_corr = bench_kernel(program, "corr_matrix");
  cl_mem buf_data = bench_buffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, data_bytes, data);
  cl_mem buf_mean = bench_buffer(cl.context, CL_MEM_READ_WRITE, m * sizeof(float), NULL);
  cl_mem buf_std = bench_buffer(cl.context, CL_MEM_READ_WRITE, m * sizeof(float), NULL);
  cl_mem buf_norm = bench_buffer(cl.context, CL_MEM_READ_WRITE, data_bytes, NULL);
  cl_mem buf_corr = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, corr_bytes, NULL);
  BENCH_ARG(k_mean, 0, buf_mean);
  BENCH_ARG(k_mean, 1, buf_data);
  BENCH_ARG(k_mean, 2, n);
  BENCH_ARG(k_mean, 3, m);
  BENCH_ARG(k_std, 0, buf_std);
  BENCH_ARG(k_std, 1, buf_data);
  BENCH_ARG(k_std, 2, buf_mean);
  BENCH_ARG(k_std, 3, n);
  BENCH_ARG(k_std, 4, m);
  BENCH_ARG(k_norm, 0, buf_norm);
  BENCH_ARG(k_norm, 1, buf_data);
  BENCH_ARG(k_norm, 2, buf_mean);
  BENCH_ARG(k_norm, 3, buf_std);
  BENCH_ARG(k_norm, 4, n);
  BENCH_ARG(k_norm, 5, m);
  BENCH_ARG(k_corr, 0, buf_corr);
  BENCH_ARG(k_corr, 1, buf_norm);
  BENCH_ARG(k_corr, 2, n);
  BENCH_ARG(k_corr, 3, m);

  const size_t local1 = 64, global1 = bench_round_up(m, local1);
  const size_t local2[2] = {16, 16};
  const size_t global_norm[2] = {bench_round_up(m, 16), bench_round_up(n, 16)};
  const size_t global_corr[2] = {bench_round_up(m, 16), bench_round_up(m, 16)};
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_mean, 1, NULL, &global1, &local1, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_std, 1, NULL, &global1, &local1, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_norm, 2, NULL, global_norm, local2, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_corr, 2, NULL, global_corr, local2, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_corr, CL_TRUE, 0, corr_bytes, corr, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    float* mean = calloc(m, sizeof(float));
    float* stddev = calloc(m, sizeof(float));
    float* norm = malloc(data_bytes);
    float* ref = malloc(corr_bytes);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) mean[j] += data[i * m + j];
    for (int j = 0; j < m; ++j) mean[j] /= (float)n;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) {
        float d = data[i * m + j] - mean[j];
        stddev[j] += d * d;
      }
    for (int j = 0; j < m; ++j) {
      float s = sqrtf(stddev[j] / (float)n);
      stddev[j] = s <= 0.1f ? 1.0f : s;
    }
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j)
        norm[i * m + j] = (data[i * m + j] - mean[j]) / (sqrtf((float)n) * stddev[j]);
    for (int j1 = 0; j1 < m; ++j1)
      for (int j2 = 0; j2 < m; ++j2) {
        float sum = 0.0f;
        for (int i = 0; i < n; ++i) sum += norm[i * m + j1] * norm[i * m + j2];
        ref[j1 * m + j2] = j1 == j2 ? 1.0f : sum;
      }
    // Correlations lie in [-1, 1]: an absolute tolerance is the right one.
    ok = bench_compare("corr", corr, ref, (size_t)m * m, 0, 1e-3);
    free(mean); free(stddev); free(norm); free(ref);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  cl_mem buffers[] = {buf_data, buf_mean, buf_std, buf_norm, buf_corr};
  for (size_t i = 0; i < sizeof buffers / sizeof *buffers; ++i) clReleaseMemObject(buffers[i]);
  clReleaseKernel(k_mean);
  clReleaseKernel(k_std);
  clReleaseKernel(k_norm);
  clReleaseKernel(k_corr);
  clReleaseProgram(program);
  bench_close(&cl);
  free(data); free(corr); free(iter_ms);
  return status;
}
