// ep: the NPB "embarrassingly parallel" kernel. Pairs of uniform numbers
// from the NPB linear congruential generator (x <- 5^13 x mod 2^46) are
// turned into Gaussian pairs by the Marsaglia polar method; the kernel sums
// them and counts them in square annuli. Each work-item handles a batch of
// pairs, jumping the generator ahead to its batch. Compute-bound.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void ep_pairs(__global float* sums, __global int* counts, ulong seed,
                       int pairs_per_item, int items) {
  int item = get_global_id(0);
  if (item >= items) return;
  const ulong mask = (1UL << 46) - 1;
  const ulong a = 1220703125UL;  // 5^13
  // Jump ahead by 2 * pairs_per_item * item numbers: x * a^k mod 2^46.
  ulong x = seed, base = a, k = 2UL * (ulong)pairs_per_item * (ulong)item;
  while (k) {
    if (k & 1UL) x = (x * base) & mask;
    base = (base * base) & mask;
    k >>= 1;
  }
  int q[10];
  for (int l = 0; l < 10; ++l) q[l] = 0;
  float sx = 0.0f, sy = 0.0f;
  for (int p = 0; p < pairs_per_item; ++p) {
    x = (x * a) & mask;
    float u = 2.0f * ((float)x * 0x1.0p-46f) - 1.0f;
    x = (x * a) & mask;
    float v = 2.0f * ((float)x * 0x1.0p-46f) - 1.0f;
    float t = u * u + v * v;
    if (t <= 1.0f && t > 0.0f) {
      float f = sqrt(-2.0f * log(t) / t);
      float gx = u * f, gy = v * f;
      int l = (int)fmax(fabs(gx), fabs(gy));
      if (l < 10) q[l] += 1;
      sx += gx;
      sy += gy;
    }
  }
  sums[2 * item] = sx;
  sums[2 * item + 1] = sy;
  for (int l = 0; l < 10; ++l) counts[10 * item + l] = q[l];
}
);

static void reference_item(float* sums, int* counts, uint64_t seed, int pairs, int item) {
  const uint64_t mask = (1ULL << 46) - 1, a = 1220703125ULL;
  uint64_t x = seed, base = a, k = 2ULL * (uint64_t)pairs * (uint64_t)item;
  while (k) {
    if (k & 1) x = (x * base) & mask;
    base = (base * base) & mask;
    k >>= 1;
  }
  float sx = 0.0f, sy = 0.0f;
  for (int l = 0; l < 10; ++l) counts[l] = 0;
  for (int p = 0; p < pairs; ++p) {
    x = (x * a) & mask;
    float u = 2.0f * ((float)x * 0x1.0p-46f) - 1.0f;
    x = (x * a) & mask;
    float v = 2.0f * ((float)x * 0x1.0p-46f) - 1.0f;
    float t = u * u + v * v;
    if (t <= 1.0f && t > 0.0f) {
      float f = sqrtf(-2.0f * logf(t) / t);
      float gx = u * f, gy = v * f;
      int l = (int)fmaxf(fabsf(gx), fabsf(gy));
      if (l < 10) counts[l] += 1;
      sx += gx;
      sy += gy;
    }
  }
  sums[0] = sx;
  sums[1] = sy;
}

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "ep", 10);
  const int pairs_per_item = 1024;
  const int items = BENCH_PRESET(opts, 1 << 11, 1 << 15, 1 << 18);
  const cl_ulong seed = 271828183ULL;
  float* sums = malloc((size_t)items * 2 * sizeof(float));
  int* counts = malloc((size_t)items * 10 * sizeof(int));

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k = bench_kernel(program, "ep_pairs");
  cl_mem buf_sums = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, (size_t)items * 2 * sizeof(float), NULL);
  cl_mem buf_counts = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, (size_t)items * 10 * sizeof(int), NULL);
  BENCH_ARG(k, 0, buf_sums);
  BENCH_ARG(k, 1, buf_counts);
  BENCH_ARG(k, 2, seed);
  BENCH_ARG(k, 3, pairs_per_item);
  BENCH_ARG(k, 4, items);

  const size_t local = 64, global = bench_round_up(items, local);
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_sums, CL_TRUE, 0, (size_t)items * 2 * sizeof(float), sums, 0, NULL, NULL));
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_counts, CL_TRUE, 0, (size_t)items * 10 * sizeof(int), counts, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    // Per-item sums must agree closely; annulus totals may differ by the rare
    // pair whose annulus flips on a last-bit difference of log/sqrt.
    float* ref_sums = malloc((size_t)items * 2 * sizeof(float));
    long got_q[10] = {0}, ref_q[10] = {0};
    int ref_counts[10];
    for (int item = 0; item < items; ++item) {
      reference_item(&ref_sums[2 * item], ref_counts, seed, pairs_per_item, item);
      for (int l = 0; l < 10; ++l) {
        ref_q[l] += ref_counts[l];
        got_q[l] += counts[10 * item + l];
      }
    }
    ok = bench_compare("sums", sums, ref_sums, (size_t)items * 2, 1e-3, 1e-2);
    long total = 0;
    for (int l = 0; l < 10; ++l) {
      total += got_q[l];
      if (labs(got_q[l] - ref_q[l]) > 2 + ref_q[l] / 100000) {
        fprintf(stderr, "annulus %d: got %ld, expected %ld\n", l, got_q[l], ref_q[l]);
        ok = 0;
      }
    }
    // Sanity of the method itself: pi/4 of the pairs are accepted.
    double accepted = (double)total / ((double)items * pairs_per_item);
    if (fabs(accepted - M_PI / 4) > 0.01) {
      fprintf(stderr, "acceptance %.4f, expected about %.4f\n", accepted, M_PI / 4);
      ok = 0;
    }
    free(ref_sums);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_sums);
  clReleaseMemObject(buf_counts);
  clReleaseKernel(k);
  clReleaseProgram(program);
  bench_close(&cl);
  free(sums); free(counts); free(iter_ms);
  return status;
}
