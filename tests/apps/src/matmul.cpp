// matmul: matrix multiply with the OpenCL C++ bindings.
// Covers: 2D NDRange with a given local size and __local tiles + barriers,
// a naive 2D kernel with NULL local size on non-square shapes, a chain
// C = A*B, D = C*B' (the second launch reads the first one's output),
// cl::KernelFunctor, cl::copy to and from host vectors, a build option
// macro giving the tile size, kernels fetched with createKernels.
#include "cpp_common.hpp"

static const char* kSource = R"CLC(
__kernel void matmul_tiled(__global const float* a, __global const float* b,
                           __global float* c, int m, int n, int k) {
  __local float ta[TILE][TILE], tb[TILE][TILE];
  int col = get_global_id(0), row = get_global_id(1);
  int lx = get_local_id(0), ly = get_local_id(1);
  float acc = 0.0f;
  for (int t = 0; t < k; t += TILE) {
    ta[ly][lx] = a[row * k + t + lx];
    tb[ly][lx] = b[(t + ly) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < TILE; ++i) acc += ta[ly][i] * tb[i][lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = acc;
}

__kernel void matmul_naive(__global const float* a, __global const float* b,
                           __global float* c, int m, int n, int k) {
  int col = get_global_id(0), row = get_global_id(1);
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) acc += a[row * k + i] * b[i * n + col];
  c[row * n + col] = acc;
}
)CLC";

int main(int argc, char** argv) {
  return run_app(argc, argv, [] {
    const int tile = 16, m = 96, n = 80, k = 64;
    cl::Device device = first_device();
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    cl::Program program(context, kSource);
    program.build({device}, "-DTILE=16");
    std::vector<cl::Kernel> kernels;
    program.createKernels(&kernels);
    cl::Kernel tiled, naive;
    for (cl::Kernel& kernel : kernels) {
      const std::string name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>();
      if (name == "matmul_tiled") tiled = kernel;
      if (name == "matmul_naive") naive = kernel;
    }
    app_print("kernels", static_cast<long long>(kernels.size()));

    // Small integers: every product and sum is exact in float.
    std::vector<float> a(m * k), b(k * n), b2(n * 40), c(m * n), d(m * 40);
    for (float& v : a) v = static_cast<float>(static_cast<int>(app_rand() % 9) - 4);
    for (float& v : b) v = static_cast<float>(static_cast<int>(app_rand() % 7) - 3);
    for (float& v : b2) v = static_cast<float>(static_cast<int>(app_rand() % 5) - 2);
    cl::Buffer da(context, a.begin(), a.end(), true);
    cl::Buffer db(context, b.begin(), b.end(), true);
    cl::Buffer db2(context, b2.begin(), b2.end(), true);
    cl::Buffer dc(context, CL_MEM_READ_WRITE, c.size() * sizeof(float));
    cl::Buffer dd(context, CL_MEM_READ_WRITE, d.size() * sizeof(float));

    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int> run_tiled(tiled);
    run_tiled(cl::EnqueueArgs(queue, cl::NDRange(n, m), cl::NDRange(tile, tile)), da, db, dc, m,
              n, k);
    cl::copy(queue, dc, c.begin(), c.end());
    dump("c_tiled", c);

    // D = C * B2 (96x80 * 80x40), naive, NULL local size.
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int> run_naive(naive);
    run_naive(cl::EnqueueArgs(queue, cl::NDRange(40, m)), dc, db2, dd, m, 40, n);
    cl::copy(queue, dd, d.begin(), d.end());
    dump("d_naive", d);

    // The naive kernel over a padded range (guards in the kernel) into C.
    run_naive(cl::EnqueueArgs(queue, cl::NDRange(96, 112), cl::NDRange(16, 8)), da, db, dc, m, n,
              k);
    queue.finish();
    cl::copy(queue, dc, c.begin(), c.end());
    dump("c_naive_padded", c);
  });
}
