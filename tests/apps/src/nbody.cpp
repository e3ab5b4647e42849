// nbody: an iterative all-pairs n-body integration.
// Covers: many launches of the same kernel with ping-pong position buffers
// (every work-item reads ALL positions, writes its own), float4 buffers,
// __local tiles with barriers, a kernel argument changed every step,
// clEnqueueReadBuffer in the middle of the run, C++ bindings with setArg.
#include "cpp_common.hpp"

static const char* kSource = R"CLC(
__kernel void advance(__global const float4* pos, __global float4* pos_out,
                   __global float4* vel, int n, float dt, __local float4* tile) {
  int i = get_global_id(0), lid = get_local_id(0), lsz = get_local_size(0);
  float4 p = pos[i];
  float3 acc = (float3)(0.0f);
  for (int base = 0; base < n; base += lsz) {
    tile[lid] = pos[base + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < lsz; ++j) {
      float4 q = tile[j];
      float3 d = q.xyz - p.xyz;
      float r2 = dot(d, d) + 0.01f;
      float inv = 1.0f / (r2 * sqrt(r2));
      acc += d * (q.w * inv);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float4 v = vel[i];
  v.xyz += acc * dt;
  vel[i] = v;
  pos_out[i] = (float4)(p.xyz + v.xyz * dt, p.w);
}
)CLC";

int main(int argc, char** argv) {
  return run_app(argc, argv, [] {
    const int n = 1024, steps = 8, local = 64;
    cl::Device device = first_device();
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    cl::Program program(context, kSource, true);
    cl::Kernel step(program, "advance");

    std::vector<cl_float4> pos(n), vel(n);
    for (int i = 0; i < n; ++i) {
      pos[i] = {{app_randf(), app_randf(), app_randf(), 1.0f + (i % 4) * 0.25f}};
      vel[i] = {{app_randf() / 16, app_randf() / 16, app_randf() / 16, 0.0f}};
    }
    cl::Buffer p[2] = {cl::Buffer(context, CL_MEM_READ_WRITE, n * sizeof(cl_float4)),
                       cl::Buffer(context, CL_MEM_READ_WRITE, n * sizeof(cl_float4))};
    cl::Buffer v(context, CL_MEM_READ_WRITE, n * sizeof(cl_float4));
    queue.enqueueWriteBuffer(p[0], CL_TRUE, 0, n * sizeof(cl_float4), pos.data());
    queue.enqueueWriteBuffer(v, CL_TRUE, 0, n * sizeof(cl_float4), vel.data());

    step.setArg(2, v);
    step.setArg(3, n);
    step.setArg(5, cl::Local(local * sizeof(cl_float4)));
    for (int s = 0; s < steps; ++s) {
      step.setArg(0, p[s % 2]);
      step.setArg(1, p[(s + 1) % 2]);
      step.setArg(4, 0.01f * (1 + s % 3));
      queue.enqueueNDRangeKernel(step, cl::NullRange, cl::NDRange(n), cl::NDRange(local));
      if (s == steps / 2) {
        queue.enqueueReadBuffer(v, CL_TRUE, 0, n * sizeof(cl_float4), vel.data());
        dump("vel_mid", vel);
      }
    }
    queue.enqueueReadBuffer(p[steps % 2], CL_TRUE, 0, n * sizeof(cl_float4), pos.data());
    queue.enqueueReadBuffer(v, CL_TRUE, 0, n * sizeof(cl_float4), vel.data());
    dump("pos", pos);
    dump("vel", vel);
  });
}
