// jacobi-1d: per time step, B = 3-point average of A, then A = 3-point
// average of B (two stencil kernels, one work-item per interior point).
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void jacobi1d_step(__global float* out, __global const float* in, int n) {
  int i = get_global_id(0);
  if (i < 1 || i >= n - 1) return;
  out[i] = 0.33333f * (in[i - 1] + in[i] + in[i + 1]);
}
);

static void reference_step(float* out, const float* in, int n) {
  for (int i = 1; i < n - 1; ++i) out[i] = 0.33333f * (in[i - 1] + in[i] + in[i + 1]);
}

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "jacobi-1d", 20);
  const int n = BENCH_PRESET(opts, 1 << 16, 1 << 22, 1 << 25);
  const size_t bytes = (size_t)n * sizeof(float);
  float* a = malloc(bytes);
  float* b = malloc(bytes);
  bench_fill(a, n, 101, 0, 1);
  bench_fill(b, n, 102, 0, 1);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k_ab = bench_kernel(program, "jacobi1d_step");
  cl_kernel k_ba = bench_kernel(program, "jacobi1d_step");
  cl_mem buf_a = bench_buffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, a);
  cl_mem buf_b = bench_buffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, b);
  BENCH_ARG(k_ab, 0, buf_b);
  BENCH_ARG(k_ab, 1, buf_a);
  BENCH_ARG(k_ab, 2, n);
  BENCH_ARG(k_ba, 0, buf_a);
  BENCH_ARG(k_ba, 1, buf_b);
  BENCH_ARG(k_ba, 2, n);

  const size_t local = 256, global = bench_round_up(n, local);
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_ab, 1, NULL, &global, &local, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_ba, 1, NULL, &global, &local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  float* out = malloc(bytes);
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_a, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
  bench_dump(&opts, out, bytes);

  int ok = 1;
  if (opts.check) {
    for (int it = 0; it < opts.iters; ++it) {
      reference_step(b, a, n);
      reference_step(a, b, n);
    }
    ok = bench_compare("A", out, a, n, 1e-4, 1e-5);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_a);
  clReleaseMemObject(buf_b);
  clReleaseKernel(k_ab);
  clReleaseKernel(k_ba);
  clReleaseProgram(program);
  bench_close(&cl);
  free(a); free(b); free(out); free(iter_ms);
  return status;
}
