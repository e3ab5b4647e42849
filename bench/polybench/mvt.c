// mvt: x1_out = x1 + A*y1 (one work-item per row) and
// x2_out = x2 + A^T*y2 (one work-item per column).
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void mvt_x1(__global float* x1_out, __global const float* x1,
                     __global const float* a, __global const float* y1, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float sum = x1[i];
  for (int j = 0; j < n; ++j) sum += a[i * n + j] * y1[j];
  x1_out[i] = sum;
}
__kernel void mvt_x2(__global float* x2_out, __global const float* x2,
                     __global const float* a, __global const float* y2, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float sum = x2[i];
  for (int j = 0; j < n; ++j) sum += a[j * n + i] * y2[j];
  x2_out[i] = sum;
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "mvt", 10);
  const int n = BENCH_PRESET(opts, 1024, 4096, 12288);
  const size_t count = (size_t)n * n, vbytes = n * sizeof(float);
  float* a = malloc(count * sizeof(float));
  float* vec[4];  // x1, x2, y1, y2
  for (int i = 0; i < 4; ++i) {
    vec[i] = malloc(vbytes);
    bench_fill(vec[i], n, 52 + i, 0, 1);
  }
  float* x1_out = malloc(vbytes);
  float* x2_out = malloc(vbytes);
  bench_fill(a, count, 51, 0, 1);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k1 = bench_kernel(program, "mvt_x1");
  cl_kernel k2 = bench_kernel(program, "mvt_x2");
  const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl_mem buf_a = bench_buffer(cl.context, in, count * sizeof(float), a);
  cl_mem buf_vec[4];
  for (int i = 0; i < 4; ++i) buf_vec[i] = bench_buffer(cl.context, in, vbytes, vec[i]);
  cl_mem buf_x1_out = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, vbytes, NULL);
  cl_mem buf_x2_out = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, vbytes, NULL);
  BENCH_ARG(k1, 0, buf_x1_out);
  BENCH_ARG(k1, 1, buf_vec[0]);
  BENCH_ARG(k1, 2, buf_a);
  BENCH_ARG(k1, 3, buf_vec[2]);
  BENCH_ARG(k1, 4, n);
  BENCH_ARG(k2, 0, buf_x2_out);
  BENCH_ARG(k2, 1, buf_vec[1]);
  BENCH_ARG(k2, 2, buf_a);
  BENCH_ARG(k2, 3, buf_vec[3]);
  BENCH_ARG(k2, 4, n);

  const size_t local = 64, global = bench_round_up(n, local);
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k1, 1, NULL, &global, &local, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k2, 1, NULL, &global, &local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_x1_out, CL_TRUE, 0, vbytes, x1_out, 0, NULL, NULL));
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_x2_out, CL_TRUE, 0, vbytes, x2_out, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    float* ref1 = malloc(vbytes);
    float* ref2 = malloc(vbytes);
    for (int i = 0; i < n; ++i) ref1[i] = vec[0][i], ref2[i] = vec[1][i];
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        ref1[i] += a[(size_t)i * n + j] * vec[2][j];
        ref2[j] += a[(size_t)i * n + j] * vec[3][i];
      }
    ok = bench_compare("x1", x1_out, ref1, n, 1e-3, 0);
    ok = bench_compare("x2", x2_out, ref2, n, 1e-3, 0) && ok;
    free(ref1); free(ref2);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_a);
  for (int i = 0; i < 4; ++i) clReleaseMemObject(buf_vec[i]);
  clReleaseMemObject(buf_x1_out);
  clReleaseMemObject(buf_x2_out);
  clReleaseKernel(k1);
  clReleaseKernel(k2);
  clReleaseProgram(program);
  bench_close(&cl);
  free(a);
  for (int i = 0; i < 4; ++i) free(vec[i]);
  free(x1_out); free(x2_out); free(iter_ms);
  return status;
}
