// histogram: 1024-bin histogram of unsigned integers with global atomics.
// Every iteration clears the bins (clEnqueueFillBuffer), then each work-item
// reads 8 consecutive values and does atomic_inc(&bins[v]) for each, the
// returned value unused. The values are skewed toward the low bins
// (v = floor(1024 u^2) for u uniform in [0, 1): bin 0 gets ~3 % of them,
// bin 1023 ~0.05 %), so some bins see much more contention than others.
// The counts are integers: the check against the CPU is exact.
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

#define BINS 1024
#define PER_ITEM 8  // values per work-item; the kernel below hard-codes it

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void histogram(__global const uint* data, __global uint* bins, uint mask, uint items) {
  uint i = get_global_id(0);
  if (i >= items) return;
  for (uint k = 0; k < 8; ++k) atomic_inc(&bins[data[8 * i + k] & mask]);
}
);

// Deterministic skewed values in [0, BINS): a 32-bit LCG, u in [0, 1) from
// its top 24 bits, v = floor(BINS * u * u) (integer arithmetic, no rounding
// question).
static void fill_values(cl_uint* data, size_t n, unsigned seed) {
  unsigned state = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    unsigned long long u = state >> 8;  // 24 bits
    data[i] = (cl_uint)((u * u * BINS) >> 48);
  }
}

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "histogram", 10);
  // Values: 2 Mi (8 MiB), 8 Mi (32 MiB), 96 Mi (384 MiB).
  const size_t values = BENCH_PRESET(opts, (size_t)1 << 21, (size_t)1 << 23, (size_t)3 << 25);
  const cl_uint items = (cl_uint)(values / PER_ITEM);
  const cl_uint mask = BINS - 1;
  cl_uint* data = malloc(values * sizeof(cl_uint));
  cl_uint* bins = malloc(BINS * sizeof(cl_uint));
  if (!data || !bins) {
    fprintf(stderr, "histogram: out of host memory\n");
    return 2;
  }
  fill_values(data, values, 20261125u);

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k = bench_kernel(program, "histogram");
  cl_mem buf_data = bench_buffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                 values * sizeof(cl_uint), data);
  cl_mem buf_bins = bench_buffer(cl.context, CL_MEM_READ_WRITE, BINS * sizeof(cl_uint), NULL);
  BENCH_ARG(k, 0, buf_data);
  BENCH_ARG(k, 1, buf_bins);
  BENCH_ARG(k, 2, mask);
  BENCH_ARG(k, 3, items);

  const size_t local = 256, global = bench_round_up(items, local);
  const cl_uint zero = 0;
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueFillBuffer(cl.queue, buf_bins, &zero, sizeof zero, 0, BINS * sizeof(cl_uint),
                                 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_bins, CL_TRUE, 0, BINS * sizeof(cl_uint), bins, 0,
                               NULL, NULL));
  bench_dump(&opts, bins, BINS * sizeof(cl_uint));

  int ok = 1;
  if (opts.check) {
    // Exact: every bin equals the CPU count, and the counts sum to the input.
    cl_uint* ref = calloc(BINS, sizeof(cl_uint));
    for (size_t i = 0; i < values; ++i) ++ref[data[i] & mask];
    unsigned long long total = 0;
    int shown = 0;
    for (int b = 0; b < BINS; ++b) {
      total += bins[b];
      if (bins[b] != ref[b]) {
        ok = 0;
        if (shown++ < 5) fprintf(stderr, "bins[%d] = %u, expected %u\n", b, bins[b], ref[b]);
      }
    }
    if (total != values) {
      fprintf(stderr, "the bins hold %llu values, expected %zu\n", total, values);
      ok = 0;
    }
    free(ref);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_data);
  clReleaseMemObject(buf_bins);
  clReleaseKernel(k);
  clReleaseProgram(program);
  bench_close(&cl);
  free(data); free(bins); free(iter_ms);
  return status;
}
