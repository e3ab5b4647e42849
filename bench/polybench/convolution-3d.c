// convolution-3d: a 3x3x3 filter (11 non-zero taps) over the interior of an
// NI x NJ x NK volume, one work-item per output point.
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void conv3d(__global float* out, __global const float* in, int ni, int nj, int nk) {
  int k = get_global_id(0);
  int j = get_global_id(1);
  int i = get_global_id(2);
  if (i < 1 || i >= ni - 1 || j < 1 || j >= nj - 1 || k < 1 || k >= nk - 1) return;
  int s = nj * nk;
  int c = i * s + j * nk + k;
  out[c] = 0.2f * in[c - s - nk - 1] + 0.5f * in[c - s - nk + 1] - 0.8f * in[c + s - nk - 1] +
           0.3f * in[c + s - nk + 1] - 0.6f * in[c - s - 1] + 0.9f * in[c - s + 1] +
           0.4f * in[c + s - 1] - 0.7f * in[c + s + 1] + 0.1f * in[c] -
           0.25f * in[c + nk] + 0.35f * in[c - nk];
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "convolution-3d", 10);
  const int ni = BENCH_PRESET(opts, 64, 256, 384);
  const int nj = BENCH_PRESET(opts, 64, 256, 384);
  const int nk = BENCH_PRESET(opts, 64, 256, 384);
  const size_t count = (size_t)ni * nj * nk, bytes = count * sizeof(float);
  float* in = malloc(bytes);
  float* out = calloc(count, sizeof(float));
  bench_fill(in, count, 141, 0, 1);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel kernel = bench_kernel(program, "conv3d");
  cl_mem buf_in = bench_buffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, in);
  cl_mem buf_out = bench_buffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, out);
  BENCH_ARG(kernel, 0, buf_out);
  BENCH_ARG(kernel, 1, buf_in);
  BENCH_ARG(kernel, 2, ni);
  BENCH_ARG(kernel, 3, nj);
  BENCH_ARG(kernel, 4, nk);

  const size_t local[3] = {32, 4, 2};
  const size_t global[3] = {bench_round_up(nk, 32), bench_round_up(nj, 4), bench_round_up(ni, 2)};
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double total_ms = bench_time_kernel(&cl, kernel, 3, global, local, opts.iters, iter_ms);
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_out, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
  bench_dump(&opts, out, bytes);

  int ok = 1;
  if (opts.check) {
    float* ref = calloc(count, sizeof(float));
    const int s = nj * nk;
    for (int i = 1; i < ni - 1; ++i)
      for (int j = 1; j < nj - 1; ++j)
        for (int k = 1; k < nk - 1; ++k) {
          int c = i * s + j * nk + k;
          ref[c] = 0.2f * in[c - s - nk - 1] + 0.5f * in[c - s - nk + 1] - 0.8f * in[c + s - nk - 1] +
                   0.3f * in[c + s - nk + 1] - 0.6f * in[c - s - 1] + 0.9f * in[c - s + 1] +
                   0.4f * in[c + s - 1] - 0.7f * in[c + s + 1] + 0.1f * in[c] -
                   0.25f * in[c + nk] + 0.35f * in[c - nk];
        }
    ok = bench_compare("B", out, ref, count, 1e-4, 1e-5);
    free(ref);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_in);
  clReleaseMemObject(buf_out);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  bench_close(&cl);
  free(in); free(out); free(iter_ms);
  return status;
}
