// 3mm: E = A*B, F = C*D, G = E*F. One matrix-product kernel, launched three
// times with different arguments.
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void matmul(__global float* out, __global const float* x,
                     __global const float* y, int rows, int cols, int inner) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i >= rows || j >= cols) return;
  float sum = 0.0f;
  for (int k = 0; k < inner; ++k) sum += x[i * inner + k] * y[k * cols + j];
  out[i * cols + j] = sum;
}
);

static void reference_product(float* out, const float* x, const float* y, int n) {
  memset(out, 0, (size_t)n * n * sizeof *out);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j) out[i * n + j] += x[i * n + k] * y[k * n + j];
}

static void launch(bench_cl* cl, cl_kernel k, cl_mem out, cl_mem x, cl_mem y, int n) {
  BENCH_ARG(k, 0, out);
  BENCH_ARG(k, 1, x);
  BENCH_ARG(k, 2, y);
  BENCH_ARG(k, 3, n);
  BENCH_ARG(k, 4, n);
  BENCH_ARG(k, 5, n);
  const size_t local[2] = {16, 16};
  const size_t global[2] = {bench_round_up(n, 16), bench_round_up(n, 16)};
  BENCH_CL(clEnqueueNDRangeKernel(cl->queue, k, 2, NULL, global, local, 0, NULL, NULL));
}

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "3mm", 10);
  const int n = BENCH_PRESET(opts, 128, 512, 2048);
  const size_t count = (size_t)n * n, bytes = count * sizeof(float);
  float* host[4];
  for (int i = 0; i < 4; ++i) {
    host[i] = malloc(bytes);
    bench_fill(host[i], count, 11 + i, -1, 1);
  }
  float* g = malloc(bytes);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k = bench_kernel(program, "matmul");
  cl_mem buf_in[4];
  for (int i = 0; i < 4; ++i)
    buf_in[i] = bench_buffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, host[i]);
  cl_mem buf_e = bench_buffer(cl.context, CL_MEM_READ_WRITE, bytes, NULL);
  cl_mem buf_f = bench_buffer(cl.context, CL_MEM_READ_WRITE, bytes, NULL);
  cl_mem buf_g = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, bytes, NULL);

  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    launch(&cl, k, buf_e, buf_in[0], buf_in[1], n);
    launch(&cl, k, buf_f, buf_in[2], buf_in[3], n);
    launch(&cl, k, buf_g, buf_e, buf_f, n);
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_g, CL_TRUE, 0, bytes, g, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    float* e = malloc(bytes);
    float* f = malloc(bytes);
    float* ref = malloc(bytes);
    reference_product(e, host[0], host[1], n);
    reference_product(f, host[2], host[3], n);
    reference_product(ref, e, f, n);
    // Inputs in [-1, 1): sums cancel, so the tolerance is absolute.
    ok = bench_compare("G", g, ref, count, 1e-3, 1e-3 * bench_max_abs(ref, count));
    free(e); free(f); free(ref);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  for (int i = 0; i < 4; ++i) clReleaseMemObject(buf_in[i]);
  clReleaseMemObject(buf_e);
  clReleaseMemObject(buf_f);
  clReleaseMemObject(buf_g);
  clReleaseKernel(k);
  clReleaseProgram(program);
  bench_close(&cl);
  for (int i = 0; i < 4; ++i) free(host[i]);
  free(g); free(iter_ms);
  return status;
}
