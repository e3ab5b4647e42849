// montecarlo: European call options priced by Monte Carlo simulation of
// geometric Brownian motion. One work-item per option walks its own paths
// with a private xorshift generator and Box-Muller normals. Compute-bound.
// Written with the OpenCL C++ bindings.
#include <CL/opencl.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "bench.h"

static const char* kSource = R"CLC(
uint xorshift(uint* s) {
  uint x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *s = x;
  return x;
}
__kernel void mc_price(__global float* price, __global const float* spot,
                       __global const float* strike, __global const float* years,
                       float rate, float vol, int paths, int options) {
  int o = get_global_id(0);
  if (o >= options) return;
  uint s = 0x9E3779B9u ^ ((uint)o * 2654435761u);
  if (s == 0) s = 1;
  float t = years[o];
  float drift = (rate - 0.5f * vol * vol) * t, diffusion = vol * sqrt(t);
  float sum = 0.0f;
  for (int p = 0; p < paths; p += 2) {
    float u1 = ((float)(xorshift(&s) >> 8) + 1.0f) * (1.0f / 16777217.0f);
    float u2 = (float)(xorshift(&s) >> 8) * (1.0f / 16777216.0f);
    float r = sqrt(-2.0f * log(u1));
    float z1 = r * cos(6.2831853f * u2), z2 = r * sin(6.2831853f * u2);
    sum += fmax(spot[o] * exp(drift + diffusion * z1) - strike[o], 0.0f);
    sum += fmax(spot[o] * exp(drift + diffusion * z2) - strike[o], 0.0f);
  }
  price[o] = exp(-rate * t) * sum / (float)paths;
}
)CLC";

namespace {

uint32_t xorshift(uint32_t* s) {
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *s = x;
  return x;
}

float reference_price(float spot, float strike, float t, float rate, float vol, int paths,
                      int o) {
  uint32_t s = 0x9E3779B9u ^ (static_cast<uint32_t>(o) * 2654435761u);
  if (s == 0) s = 1;
  float drift = (rate - 0.5f * vol * vol) * t, diffusion = vol * std::sqrt(t);
  float sum = 0.0f;
  for (int p = 0; p < paths; p += 2) {
    float u1 = (static_cast<float>(xorshift(&s) >> 8) + 1.0f) * (1.0f / 16777217.0f);
    float u2 = static_cast<float>(xorshift(&s) >> 8) * (1.0f / 16777216.0f);
    float r = std::sqrt(-2.0f * std::log(u1));
    float z1 = r * std::cos(6.2831853f * u2), z2 = r * std::sin(6.2831853f * u2);
    sum += std::fmax(spot * std::exp(drift + diffusion * z1) - strike, 0.0f);
    sum += std::fmax(spot * std::exp(drift + diffusion * z2) - strike, 0.0f);
  }
  return std::exp(-rate * t) * sum / static_cast<float>(paths);
}

}  // namespace

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "montecarlo", 10);
  const int options = BENCH_PRESET(opts, 256, 4096, 16384);
  const int paths = BENCH_PRESET(opts, 4096, 16384, 65536);  // even
  const float rate = 0.02f, vol = 0.3f;
  std::vector<float> spot(options), strike(options), years(options), price(options);
  bench_fill(spot.data(), options, 181, 10, 100);
  bench_fill(strike.data(), options, 182, 10, 100);
  bench_fill(years.data(), options, 183, 0.25f, 5);

  cl::Device device(bench_pick_device(opts.device));
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  cl::Program program(bench_build(context(), device(), kSource, ""));
  cl::Kernel kernel(program, "mc_price");
  const size_t bytes = options * sizeof(float);
  const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl::Buffer buf_spot(context, in, bytes, spot.data());
  cl::Buffer buf_strike(context, in, bytes, strike.data());
  cl::Buffer buf_years(context, in, bytes, years.data());
  cl::Buffer buf_price(context, CL_MEM_WRITE_ONLY, bytes);
  kernel.setArg(0, buf_price);
  kernel.setArg(1, buf_spot);
  kernel.setArg(2, buf_strike);
  kernel.setArg(3, buf_years);
  kernel.setArg(4, rate);
  kernel.setArg(5, vol);
  kernel.setArg(6, paths);
  kernel.setArg(7, options);

  const cl::NDRange local(32), global(bench_round_up(options, 32));
  std::vector<double> iter_ms(opts.iters);
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    bench_check_cl(queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local),
                   "enqueueNDRangeKernel(mc_price)");
    bench_check_cl(queue.finish(), "finish");
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  bench_check_cl(queue.enqueueReadBuffer(buf_price, CL_TRUE, 0, bytes, price.data()),
                 "enqueueReadBuffer");

  int ok = 1;
  if (opts.check) {
    std::vector<float> ref(options);
    for (int o = 0; o < options; ++o)
      ref[o] = reference_price(spot[o], strike[o], years[o], rate, vol, paths, o);
    // Same paths on both sides; only last-bit differences of exp/log/cos.
    ok = bench_compare("price", price.data(), ref.data(), options, 1e-3, 1e-3);
  }
  return bench_finish(&opts, iter_ms.data(), opts.iters, total_ms, ok);
}
