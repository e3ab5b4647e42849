// nbody: all-pairs gravitational N-body with a smooth interaction cut-off.
// Bodies start in clusters of very different density and mass, and every
// step moves them, so the number of neighbours within the cut-off (the work
// of a work-item) is uneven across the range and shifts over time.
// Written with the OpenCL C++ bindings.
#include <CL/opencl.hpp>

#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "bench.h"

static const char* kSource = R"CLC(
__kernel void nbody_step(__global const float4* pos_in, __global float4* pos_out,
                         __global float4* vel, float dt, float cutoff2, float eps2,
                         int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float4 p = pos_in[i];
  float3 acc = (float3)(0.0f, 0.0f, 0.0f);
  for (int j = 0; j < n; ++j) {
    float4 q = pos_in[j];
    float3 d = q.xyz - p.xyz;
    float r2 = dot(d, d);
    if (r2 < cutoff2) {
      float w = 1.0f - r2 / cutoff2;
      float inv = 1.0f / sqrt(r2 + eps2);
      acc += d * (q.w * inv * inv * inv * w * w);
    }
  }
  float4 v = vel[i];
  v.xyz += acc * dt;
  vel[i] = v;
  pos_out[i] = (float4)(p.xyz + v.xyz * dt, p.w);
}
)CLC";

namespace {

struct Body {
  float x, y, z, m;
};

// Cluster c of nc holds a contiguous index range; cluster radius grows with
// c so early clusters are dense (many neighbours) and late ones sparse.
void initial_state(std::vector<Body>& pos, std::vector<Body>& vel) {
  const int n = static_cast<int>(pos.size());
  const int clusters = 8;
  std::vector<float> r(4 * n);
  bench_fill(r.data(), r.size(), 151, 0, 1);
  for (int i = 0; i < n; ++i) {
    int c = i * clusters / n;
    float radius = 0.05f + 0.12f * c;
    float cx = std::cos(c * 0.8f) * 1.5f, cy = std::sin(c * 0.8f) * 1.5f;
    pos[i] = {cx + radius * (2 * r[4 * i] - 1), cy + radius * (2 * r[4 * i + 1] - 1),
              radius * (2 * r[4 * i + 2] - 1),
              // Power-law masses: a few heavy bodies, many light ones.
              0.001f + 0.05f * std::pow(r[4 * i + 3], 8.0f)};
    // Clusters drift toward the centre so their overlap (and the load) moves.
    vel[i] = {-0.6f * cx, -0.6f * cy, 0.0f, 0.0f};
  }
}

void reference_step(const std::vector<Body>& in, std::vector<Body>& out,
                    std::vector<Body>& vel, float dt, float cutoff2, float eps2) {
  const size_t n = in.size();
  for (size_t i = 0; i < n; ++i) {
    const Body p = in[i];
    float ax = 0, ay = 0, az = 0;
    for (size_t j = 0; j < n; ++j) {
      float dx = in[j].x - p.x, dy = in[j].y - p.y, dz = in[j].z - p.z;
      float r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < cutoff2) {
        float w = 1.0f - r2 / cutoff2;
        float inv = 1.0f / std::sqrt(r2 + eps2);
        float s = in[j].m * inv * inv * inv * w * w;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
      }
    }
    vel[i].x += ax * dt;
    vel[i].y += ay * dt;
    vel[i].z += az * dt;
    out[i] = {p.x + vel[i].x * dt, p.y + vel[i].y * dt, p.z + vel[i].z * dt, p.m};
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "nbody", 10);
  const int n = BENCH_PRESET(opts, 2048, 16384, 32768);
  const float dt = 0.005f, cutoff2 = 0.25f * 0.25f, eps2 = 1e-3f;
  std::vector<Body> pos(n), vel(n);
  initial_state(pos, vel);

  cl::Device device(bench_pick_device(opts.device));
  cl::Context context(device);
  cl::CommandQueue queue(context, device);
  cl::Program program(bench_build(context(), device(), kSource, ""));
  cl::Kernel kernel(program, "nbody_step");
  const size_t bytes = n * sizeof(Body);
  cl::Buffer pos_a(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, pos.data());
  cl::Buffer pos_b(context, CL_MEM_READ_WRITE, bytes);
  cl::Buffer vel_buf(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, vel.data());
  kernel.setArg(2, vel_buf);
  kernel.setArg(3, dt);
  kernel.setArg(4, cutoff2);
  kernel.setArg(5, eps2);
  kernel.setArg(6, n);

  const cl::NDRange local(64), global(bench_round_up(n, 64));
  std::vector<double> iter_ms(opts.iters);
  cl::Buffer* in = &pos_a;
  cl::Buffer* out = &pos_b;
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    kernel.setArg(0, *in);
    kernel.setArg(1, *out);
    bench_check_cl(queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local),
                   "enqueueNDRangeKernel(nbody_step)");
    bench_check_cl(queue.finish(), "finish");
    iter_ms[it] = bench_now_ms() - t0;
    std::swap(in, out);
  }
  double total_ms = bench_now_ms() - start;
  std::vector<Body> result(n);
  bench_check_cl(queue.enqueueReadBuffer(*in, CL_TRUE, 0, bytes, result.data()),
                 "enqueueReadBuffer");

  int ok = 1;
  if (opts.check) {
    std::vector<Body> next(n);
    for (int it = 0; it < opts.iters; ++it) {
      reference_step(pos, next, vel, dt, cutoff2, eps2);
      std::swap(pos, next);
    }
    const float* got = &result[0].x;
    const float* ref = &pos[0].x;
    ok = bench_compare("pos", got, ref, 4 * static_cast<size_t>(n), 1e-3,
                       1e-4 * bench_max_abs(ref, 4 * static_cast<size_t>(n)));
  }
  return bench_finish(&opts, iter_ms.data(), opts.iters, total_ms, ok);
}
