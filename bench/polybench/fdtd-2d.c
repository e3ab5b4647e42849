// fdtd-2d: 2-D finite-difference time domain. Per time step three kernels
// update ey (with the source row ey[0][*] = fict[t]), ex, then hz; one
// work-item per grid point.
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void fdtd_ey(__global float* ey, __global const float* hz,
                      __global const float* fict, int t, int nx, int ny) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i >= nx || j >= ny) return;
  if (i == 0)
    ey[j] = fict[t];
  else
    ey[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
}
__kernel void fdtd_ex(__global float* ex, __global const float* hz, int nx, int ny) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i >= nx || j < 1 || j >= ny) return;
  ex[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[i * ny + j - 1]);
}
__kernel void fdtd_hz(__global float* hz, __global const float* ex,
                      __global const float* ey, int nx, int ny) {
  int j = get_global_id(0);
  int i = get_global_id(1);
  if (i >= nx - 1 || j >= ny - 1) return;
  hz[i * ny + j] -= 0.7f * (ex[i * ny + j + 1] - ex[i * ny + j] +
                            ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
);

static void reference_step(float* ex, float* ey, float* hz, const float* fict, int t,
                           int nx, int ny) {
  for (int j = 0; j < ny; ++j) ey[j] = fict[t];
  for (int i = 1; i < nx; ++i)
    for (int j = 0; j < ny; ++j) ey[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
  for (int i = 0; i < nx; ++i)
    for (int j = 1; j < ny; ++j) ex[i * ny + j] -= 0.5f * (hz[i * ny + j] - hz[i * ny + j - 1]);
  for (int i = 0; i < nx - 1; ++i)
    for (int j = 0; j < ny - 1; ++j)
      hz[i * ny + j] -= 0.7f * (ex[i * ny + j + 1] - ex[i * ny + j] + ey[(i + 1) * ny + j] -
                                ey[i * ny + j]);
}

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "fdtd-2d", 20);
  const int nx = BENCH_PRESET(opts, 256, 2048, 6144);
  const int ny = BENCH_PRESET(opts, 320, 2560, 7168);
  const size_t count = (size_t)nx * ny, bytes = count * sizeof(float);
  float* ex = malloc(bytes);
  float* ey = malloc(bytes);
  float* hz = malloc(bytes);
  float* fict = malloc(opts.iters * sizeof(float));
  bench_fill(ex, count, 121, 0, 1);
  bench_fill(ey, count, 122, 0, 1);
  bench_fill(hz, count, 123, 0, 1);
  for (int t = 0; t < opts.iters; ++t) fict[t] = (float)t;

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k_ey = bench_kernel(program, "fdtd_ey");
  cl_kernel k_ex = bench_kernel(program, "fdtd_ex");
  cl_kernel k_hz = bench_kernel(program, "fdtd_hz");
  const cl_mem_flags rw = CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR;
  cl_mem buf_ex = bench_buffer(cl.context, rw, bytes, ex);
  cl_mem buf_ey = bench_buffer(cl.context, rw, bytes, ey);
  cl_mem buf_hz = bench_buffer(cl.context, rw, bytes, hz);
  cl_mem buf_fict = bench_buffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                 opts.iters * sizeof(float), fict);
  BENCH_ARG(k_ey, 0, buf_ey);
  BENCH_ARG(k_ey, 1, buf_hz);
  BENCH_ARG(k_ey, 2, buf_fict);
  BENCH_ARG(k_ey, 4, nx);
  BENCH_ARG(k_ey, 5, ny);
  BENCH_ARG(k_ex, 0, buf_ex);
  BENCH_ARG(k_ex, 1, buf_hz);
  BENCH_ARG(k_ex, 2, nx);
  BENCH_ARG(k_ex, 3, ny);
  BENCH_ARG(k_hz, 0, buf_hz);
  BENCH_ARG(k_hz, 1, buf_ex);
  BENCH_ARG(k_hz, 2, buf_ey);
  BENCH_ARG(k_hz, 3, nx);
  BENCH_ARG(k_hz, 4, ny);

  const size_t local[2] = {16, 16};
  const size_t global[2] = {bench_round_up(ny, 16), bench_round_up(nx, 16)};
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int t = 0; t < opts.iters; ++t) {
    double t0 = bench_now_ms();
    BENCH_ARG(k_ey, 3, t);
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_ey, 2, NULL, global, local, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_ex, 2, NULL, global, local, 0, NULL, NULL));
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k_hz, 2, NULL, global, local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[t] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  float* out = malloc(bytes);
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_hz, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
  bench_dump(&opts, out, bytes);

  int ok = 1;
  if (opts.check) {
    for (int t = 0; t < opts.iters; ++t) reference_step(ex, ey, hz, fict, t, nx, ny);
    ok = bench_compare("hz", out, hz, count, 1e-3, 1e-4 * bench_max_abs(hz, count));
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  clReleaseMemObject(buf_ex);
  clReleaseMemObject(buf_ey);
  clReleaseMemObject(buf_hz);
  clReleaseMemObject(buf_fict);
  clReleaseKernel(k_ey);
  clReleaseKernel(k_ex);
  clReleaseKernel(k_hz);
  clReleaseProgram(program);
  bench_close(&cl);
  free(ex); free(ey); free(hz); free(fict); free(out); free(iter_ms);
  return status;
}
