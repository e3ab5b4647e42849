// convolution-2d: 3x3 filter over the interior of an NI x NJ image, one
// work-item per output pixel.
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void conv2d(__global float* out, __global const float* in, int ni, int nj) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i < 1 || i >= ni - 1 || j < 1 || j >= nj - 1) return;
  out[i * nj + j] =
      0.2f * in[(i - 1) * nj + j - 1] + 0.5f * in[(i - 1) * nj + j] - 0.8f * in[(i - 1) * nj + j + 1] +
      -0.3f * in[i * nj + j - 1] + 0.6f * in[i * nj + j] - 0.9f * in[i * nj + j + 1] +
      0.4f * in[(i + 1) * nj + j - 1] + 0.7f * in[(i + 1) * nj + j] + 0.1f * in[(i + 1) * nj + j + 1];
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "convolution-2d", 10);
  const int ni = BENCH_PRESET(opts, 512, 4096, 8192);
  const int nj = BENCH_PRESET(opts, 512, 4096, 8192);
  const size_t count = (size_t)ni * nj, bytes = count * sizeof(float);
  float* in = malloc(bytes);
  float* out = calloc(count, sizeof(float));
  bench_fill(in, count, 131, 0, 1);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k = bench_kernel(program, "conv2d");
  cl_mem buf_in = bench_buffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, in);
  // The border is never written: start from zeros so the result is defined.
  cl_mem buf_out = bench_buffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, out);
  BENCH_ARG(k, 0, buf_out);
  BENCH_ARG(k, 1, buf_in);
  BENCH_ARG(k, 2, ni);
  BENCH_ARG(k, 3, nj);

  const size_t local[2] = {16, 16};
  const size_t global[2] = {bench_round_up(nj, 16), bench_round_up(ni, 16)};
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double total_ms = bench_time_kernel(&cl, k, 2, global, local, opts.iters, iter_ms);
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_out, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
  bench_dump(&opts, out, bytes);

  int ok = 1;
  if (opts.check) {
    float* ref = calloc(count, sizeof(float));
    for (int i = 1; i < ni - 1; ++i)
      for (int j = 1; j < nj - 1; ++j)
        ref[i * nj + j] =
            0.2f * in[(i - 1) * nj + j - 1] + 0.5f * in[(i - 1) * nj + j] - 0.8f * in[(i - 1) * nj + j + 1] +
            -0.3f * in[i * nj + j - 1] + 0.6f * in[i * nj + j] - 0.9f * in[i * nj + j + 1] +
            0.4f * in[(i + 1) * nj + j - 1] + 0.7f * in[(i + 1) * nj + j] + 0.1f * in[(i + 1) * nj + j + 1];
    ok = bench_compare("B", out, ref, count, 1e-4, 1e-5);
    free(ref);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_in);
  clReleaseMemObject(buf_out);
  clReleaseKernel(k);
  clReleaseProgram(program);
  bench_close(&cl);
  free(in); free(out); free(iter_ms);
  return status;
}
