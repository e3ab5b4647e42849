// conv1d: a 1D convolution with halos, plus a separable 2D blur.
// Covers: a __constant filter argument, a local-memory tile loaded with its
// halo (reads beyond the work-group's own range), clamped borders, the same
// convolution without local memory (both results dumped), a 2D separable
// blur as two launches (rows then columns) over a ping-pong pair, a kernel
// with a helper that takes the global id as a parameter, a tile fetched with
// async_work_group_copy + wait_group_events.
#include "cpp_common.hpp"

static const char* kSource = R"CLC(
#define RADIUS 4

int clamp_index(int i, int n) { return min(max(i, 0), n - 1); }

__kernel void conv_local(__global const float* in, __constant float* filter,
                         __global float* out, int n, __local float* tile) {
  int gid = get_global_id(0), lid = get_local_id(0), lsz = get_local_size(0);
  int base = get_group_id(0) * lsz;
  for (int t = lid; t < lsz + 2 * RADIUS; t += lsz)
    tile[t] = in[clamp_index(base + t - RADIUS, n)];
  barrier(CLK_LOCAL_MEM_FENCE);
  float acc = 0.0f;
  for (int r = -RADIUS; r <= RADIUS; ++r) acc += filter[r + RADIUS] * tile[lid + RADIUS + r];
  out[gid] = acc;
}

// The same convolution with the tile fetched by async_work_group_copy
// (interior groups) and the halo loaded by hand.
__kernel void conv_async(__global const float* in, __constant float* filter,
                         __global float* out, int n, __local float* tile) {
  int gid = get_global_id(0), lid = get_local_id(0), lsz = get_local_size(0);
  int base = get_group_id(0) * lsz;
  event_t copied = async_work_group_copy(tile + RADIUS, in + base, (size_t)lsz, 0);
  if (lid < RADIUS) {
    tile[lid] = in[clamp_index(base - RADIUS + lid, n)];
    tile[lsz + RADIUS + lid] = in[clamp_index(base + lsz + lid, n)];
  }
  wait_group_events(1, &copied);
  barrier(CLK_LOCAL_MEM_FENCE);
  float acc = 0.0f;
  for (int r = -RADIUS; r <= RADIUS; ++r) acc += filter[r + RADIUS] * tile[lid + RADIUS + r];
  out[gid] = acc;
}

float conv_at(__global const float* in, __constant float* filter, int i, int n) {
  float acc = 0.0f;
  for (int r = -RADIUS; r <= RADIUS; ++r) acc += filter[r + RADIUS] * in[clamp_index(i + r, n)];
  return acc;
}

__kernel void conv_global(__global const float* in, __constant float* filter,
                          __global float* out, int n) {
  int i = get_global_id(0);
  out[i] = conv_at(in, filter, i, n);
}

__kernel void blur_rows(__global const float* in, __global float* out, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  float s = in[y * w + clamp_index(x - 1, w)] + 2.0f * in[y * w + x] +
            in[y * w + clamp_index(x + 1, w)];
  out[y * w + x] = s * 0.25f;
}

__kernel void blur_cols(__global const float* in, __global float* out, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  float s = in[clamp_index(y - 1, h) * w + x] + 2.0f * in[y * w + x] +
            in[clamp_index(y + 1, h) * w + x];
  out[y * w + x] = s * 0.25f;
}
)CLC";

int main(int argc, char** argv) {
  return run_app(argc, argv, [] {
    const int n = 8192, local = 64, radius = 4, w = 128, h = 72;
    cl::Device device = first_device();
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    cl::Program program(context, kSource, true);

    std::vector<float> in(n), out(n), filter(2 * radius + 1), img(w * h);
    for (float& v : in) v = app_randf();
    for (int r = 0; r <= 2 * radius; ++r) filter[r] = static_cast<float>(r % 3 + 1) / 8.0f;
    for (float& v : img) v = static_cast<float>(app_rand() % 256);

    cl::Buffer din(context, in.begin(), in.end(), true);
    cl::Buffer dfilter(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                       filter.size() * sizeof(float), filter.data());
    cl::Buffer dout(context, CL_MEM_WRITE_ONLY, n * sizeof(float));

    cl::Kernel conv_local(program, "conv_local");
    conv_local.setArg(0, din);
    conv_local.setArg(1, dfilter);
    conv_local.setArg(2, dout);
    conv_local.setArg(3, n);
    conv_local.setArg(4, cl::Local((local + 2 * radius) * sizeof(float)));
    queue.enqueueNDRangeKernel(conv_local, cl::NullRange, cl::NDRange(n), cl::NDRange(local));
    queue.enqueueReadBuffer(dout, CL_TRUE, 0, n * sizeof(float), out.data());
    dump("conv_local", out);

    cl::Kernel conv_async(program, "conv_async");
    conv_async.setArg(0, din);
    conv_async.setArg(1, dfilter);
    conv_async.setArg(2, dout);
    conv_async.setArg(3, n);
    conv_async.setArg(4, cl::Local((local + 2 * radius) * sizeof(float)));
    queue.enqueueNDRangeKernel(conv_async, cl::NullRange, cl::NDRange(n), cl::NDRange(local));
    queue.enqueueReadBuffer(dout, CL_TRUE, 0, n * sizeof(float), out.data());
    dump("conv_async", out);

    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int> conv_global(program,
                                                                         "conv_global");
    conv_global(cl::EnqueueArgs(queue, cl::NDRange(n)), din, dfilter, dout, n);
    queue.enqueueReadBuffer(dout, CL_TRUE, 0, n * sizeof(float), out.data());
    dump("conv_global", out);

    cl::Buffer a(context, img.begin(), img.end(), false);
    cl::Buffer b(context, CL_MEM_READ_WRITE, img.size() * sizeof(float));
    cl::KernelFunctor<cl::Buffer, cl::Buffer, int, int> rows(program, "blur_rows");
    cl::KernelFunctor<cl::Buffer, cl::Buffer, int, int> cols(program, "blur_cols");
    for (int pass = 0; pass < 3; ++pass) {
      rows(cl::EnqueueArgs(queue, cl::NDRange(w, h), cl::NDRange(16, 8)), a, b, w, h);
      cols(cl::EnqueueArgs(queue, cl::NDRange(w, h), cl::NDRange(32, 4)), b, a, w, h);
    }
    cl::copy(queue, a, img.begin(), img.end());
    dump("blurred", img);
  });
}
