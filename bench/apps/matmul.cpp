// matmul: C = A * B with 16x16 tiles staged in local memory, one work-item
// per element of C. Written with the OpenCL C++ bindings.
#include <CL/opencl.hpp>

#include <algorithm>
#include <vector>

#include "bench.h"

static const char* kSource = R"CLC(
#define TILE 16
__kernel void matmul_tiled(__global float* c, __global const float* a,
                           __global const float* b, int n) {
  __local float a_tile[TILE][TILE];
  __local float b_tile[TILE][TILE];
  int col = get_global_id(0), row = get_global_id(1);
  int lc = get_local_id(0), lr = get_local_id(1);
  float sum = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    a_tile[lr][lc] = a[row * n + t + lc];
    b_tile[lr][lc] = b[(t + lr) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k) sum += a_tile[lr][k] * b_tile[k][lc];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = sum;
}
)CLC";

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "matmul", 10);
  const int n = BENCH_PRESET(opts, 256, 1024, 4096);  // multiple of the tile
  const size_t count = static_cast<size_t>(n) * n, bytes = count * sizeof(float);
  std::vector<float> a(count), b(count), c(count);
  bench_fill(a.data(), count, 161, -1, 1);
  bench_fill(b.data(), count, 162, -1, 1);

  cl::Device device(bench_pick_device(opts.device));
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  cl::Program program(bench_build(context(), device(), kSource, ""));
  cl::Kernel kernel(program, "matmul_tiled");
  cl::Buffer buf_a(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a.data());
  cl::Buffer buf_b(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b.data());
  cl::Buffer buf_c(context, CL_MEM_WRITE_ONLY, bytes);
  kernel.setArg(0, buf_c);
  kernel.setArg(1, buf_a);
  kernel.setArg(2, buf_b);
  kernel.setArg(3, n);

  const cl::NDRange local(16, 16), global(n, n);
  std::vector<double> iter_ms(opts.iters);
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    bench_check_cl(queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local),
                   "enqueueNDRangeKernel(matmul_tiled)");
    bench_check_cl(queue.finish(), "finish");
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  bench_check_cl(queue.enqueueReadBuffer(buf_c, CL_TRUE, 0, bytes, c.data()),
                 "enqueueReadBuffer");

  int ok = 1;
  if (opts.check) {
    // Every row for the small and medium presets; an even sample of rows
    // (all columns) for large, where the full product on the CPU is slow.
    const int stride = std::max(1, n / 512);
    std::vector<float> ref_row(n);
    for (int i = 0; i < n && ok; i += stride) {
      std::fill(ref_row.begin(), ref_row.end(), 0.0f);
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j) ref_row[j] += a[static_cast<size_t>(i) * n + k] * b[static_cast<size_t>(k) * n + j];
      ok = bench_compare("C row", &c[static_cast<size_t>(i) * n], ref_row.data(), n, 1e-3,
                         1e-3 * std::max(1.0, bench_max_abs(ref_row.data(), n)));
    }
  }
  return bench_finish(&opts, iter_ms.data(), opts.iters, total_ms, ok);
}
