// mandelbrot: escape-time iteration counts over a W x H window of the
// complex plane, one work-item per pixel. Pixels inside the set run to the
// iteration limit and pixels far outside stop at once, so the work per
// work-group is very irregular.
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

static const char* kSource =
    // No contraction into fma: the CPU reference rounds every operation.
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void mandelbrot(__global int* counts, float x0, float y0, float step,\n"
    "                         int width, int height, int max_iter) {\n"
    "  int px = get_global_id(0);\n"
    "  int py = get_global_id(1);\n"
    "  if (px >= width || py >= height) return;\n"
    "  float cr = x0 + px * step, ci = y0 + py * step;\n"
    "  float zr = 0.0f, zi = 0.0f;\n"
    "  int n = 0;\n"
    "  while (n < max_iter && zr * zr + zi * zi <= 4.0f) {\n"
    "    float t = zr * zr - zi * zi + cr;\n"
    "    zi = 2.0f * zr * zi + ci;\n"
    "    zr = t;\n"
    "    ++n;\n"
    "  }\n"
    "  counts[py * width + px] = n;\n"
    "}\n";

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "mandelbrot", 10);
  const int width = BENCH_PRESET(opts, 512, 2048, 8192);
  const int height = BENCH_PRESET(opts, 384, 1536, 6144);
  const int max_iter = BENCH_PRESET(opts, 256, 512, 1024);
  const float x0 = -2.2f, y0 = -1.2f, step = 3.2f / width;
  const size_t count = (size_t)width * height;
  int* counts = malloc(count * sizeof(int));

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k = bench_kernel(program, "mandelbrot");
  cl_mem buf = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, count * sizeof(int), NULL);
  BENCH_ARG(k, 0, buf);
  BENCH_ARG(k, 1, x0);
  BENCH_ARG(k, 2, y0);
  BENCH_ARG(k, 3, step);
  BENCH_ARG(k, 4, width);
  BENCH_ARG(k, 5, height);
  BENCH_ARG(k, 6, max_iter);

  const size_t local[2] = {16, 16};
  const size_t global[2] = {bench_round_up(width, 16), bench_round_up(height, 16)};
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double total_ms = bench_time_kernel(&cl, k, 2, global, local, opts.iters, iter_ms);
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf, CL_TRUE, 0, count * sizeof(int), counts, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    // Chaotic near the boundary of the set: allow a few pixels to differ by
    // a last-bit rounding difference, never more than 0.1 %.
    size_t bad = 0;
    for (int py = 0; py < height; ++py)
      for (int px = 0; px < width; ++px) {
        float cr = x0 + px * step, ci = y0 + py * step;
        float zr = 0.0f, zi = 0.0f;
        int n = 0;
        while (n < max_iter && zr * zr + zi * zi <= 4.0f) {
          float t = zr * zr - zi * zi + cr;
          zi = 2.0f * zr * zi + ci;
          zr = t;
          ++n;
        }
        if (counts[(size_t)py * width + px] != n) ++bad;
      }
    if (bad * 1000 > count) {
      fprintf(stderr, "%zu of %zu pixels differ\n", bad, count);
      ok = 0;
    } else if (bad) {
      fprintf(stderr, "%zu of %zu pixels differ (within the allowance)\n", bad, count);
    }
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf);
  clReleaseKernel(k);
  clReleaseProgram(program);
  bench_close(&cl);
  free(counts); free(iter_ms);
  return status;
}
