// types: argument and element types other than float/int.
// Covers: a struct passed by value, vector scalars (float4, int2) as kernel
// arguments, uchar/short/ulong/char4/float3-in-float4 buffers (element
// sizes 1, 2, 8 and 16 bytes, buffer sizes not multiples of the group size
// in bytes), 3-component vector loads with vload3/vstore3, double buffers
// when the device has cl_khr_fp64, a kernel whose work-item writes two
// non-adjacent elements (i and n-1-i), a kernel writing only some fields
// of an array of structs, a kernel writing every stride-th element (the
// bytes in between must keep the host's values).
#include "cpp_common.hpp"

#include <cstring>

static const char* kSource = R"CLC(
typedef struct {
  float scale;
  int bias;
  short shift;
  uchar mask;
} params_t;

__kernel void apply(__global const uchar* bytes, __global short* shorts,
                    __global ulong* longs, params_t p, float4 v4, int2 v2,
                    __global float4* out4) {
  int i = get_global_id(0);
  shorts[i] = (short)((bytes[i] & p.mask) * 3 - p.shift);
  longs[i] = ((ulong)bytes[i] << 40) + (ulong)(i * p.bias);
  out4[i] = v4 * p.scale + (float4)((float)v2.x, (float)v2.y, (float)bytes[i], 0.5f);
}

__kernel void chars(__global const char4* in, __global char4* out) {
  int i = get_global_id(0);
  char4 c = in[i];
  out[i] = (char4)(c.w, c.z, c.y, c.x) + (char4)(1, 2, 3, 4);
}

__kernel void cross3(__global const float* a, __global const float* b, __global float* out) {
  int i = get_global_id(0);
  vstore3(cross(vload3(i, a), vload3(i, b)), i, out);
}

__kernel void mirror(__global const int* in, __global int* out, int n) {
  int i = get_global_id(0);
  out[i] = in[i] * 2;
  out[n - 1 - i] = in[n - 1 - i] * 2 + 1;
}

typedef struct {
  float x, y;
  int id;
  short flags;
  char tag;
} particle_t;

// Writes only some fields of each element: the other bytes must keep the
// host's values.
__kernel void touch_fields(__global particle_t* p, float dy) {
  int i = get_global_id(0);
  p[i].y += dy * (float)(i % 5);
  p[i].flags = (short)(p[i].id * 3);
}

// Writes every stride-th element only: the gaps must keep the host's values.
__kernel void strided(__global int* out, int stride, int base) {
  int i = get_global_id(0);
  out[i * stride + 1] = base + i;
}

#ifdef HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void dscale(__global const double* in, __global double* out, double f) {
  int i = get_global_id(0);
  out[i] = in[i] * f + 0.125;
}
#endif
)CLC";

struct Params {
  float scale;
  cl_int bias;
  cl_short shift;
  cl_uchar mask;
};

int main(int argc, char** argv) {
  return run_app(argc, argv, [] {
    const int n = 1000, m = 2048;
    cl::Device device = first_device();
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    const std::string extensions = device.getInfo<CL_DEVICE_EXTENSIONS>();
    const bool fp64 = extensions.find("cl_khr_fp64") != std::string::npos;
    app_print("fp64", fp64);
    cl::Program program(context, kSource);
    program.build(fp64 ? "-DHAVE_FP64" : "");

    std::vector<cl_uchar> bytes(n);
    for (cl_uchar& b : bytes) b = static_cast<cl_uchar>(app_rand());
    std::vector<cl_short> shorts(n);
    std::vector<cl_ulong> longs(n);
    std::vector<cl_float4> out4(n);
    cl::Buffer dbytes(context, bytes.begin(), bytes.end(), true);
    cl::Buffer dshorts(context, CL_MEM_WRITE_ONLY, n * sizeof(cl_short));
    cl::Buffer dlongs(context, CL_MEM_WRITE_ONLY, n * sizeof(cl_ulong));
    cl::Buffer dout4(context, CL_MEM_WRITE_ONLY, n * sizeof(cl_float4));
    Params p{0.5f, 7, 11, 0x3f};
    cl_float4 v4 = {{1.0f, -2.0f, 3.5f, 0.25f}};
    cl_int2 v2 = {{-9, 42}};
    cl::Kernel apply(program, "apply");
    apply.setArg(0, dbytes);
    apply.setArg(1, dshorts);
    apply.setArg(2, dlongs);
    apply.setArg(3, sizeof p, &p);
    apply.setArg(4, v4);
    apply.setArg(5, v2);
    apply.setArg(6, dout4);
    queue.enqueueNDRangeKernel(apply, cl::NullRange, cl::NDRange(n), cl::NDRange(8));
    cl::copy(queue, dshorts, shorts.begin(), shorts.end());
    cl::copy(queue, dlongs, longs.begin(), longs.end());
    cl::copy(queue, dout4, out4.begin(), out4.end());
    dump("shorts", shorts);
    dump("longs", longs);
    dump("out4", out4);

    std::vector<cl_char4> c4(m);
    for (cl_char4& c : c4)
      for (int k = 0; k < 4; ++k) c.s[k] = static_cast<cl_char>(app_rand() % 200);
    cl::Buffer dc4(context, c4.begin(), c4.end(), true);
    cl::Buffer dc4out(context, CL_MEM_WRITE_ONLY, m * sizeof(cl_char4));
    cl::KernelFunctor<cl::Buffer, cl::Buffer>(program, "chars")(
        cl::EnqueueArgs(queue, cl::NDRange(m), cl::NDRange(32)), dc4, dc4out);
    cl::copy(queue, dc4out, c4.begin(), c4.end());
    dump("chars", c4);

    std::vector<float> a(3 * n), b(3 * n), c(3 * n);
    for (float& v : a) v = app_randf();
    for (float& v : b) v = app_randf();
    cl::Buffer da(context, a.begin(), a.end(), true), db(context, b.begin(), b.end(), true);
    cl::Buffer dc(context, CL_MEM_WRITE_ONLY, c.size() * sizeof(float));
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer>(program, "cross3")(
        cl::EnqueueArgs(queue, cl::NDRange(n)), da, db, dc);
    cl::copy(queue, dc, c.begin(), c.end());
    dump("cross3", c);

    std::vector<int> ints(m), mirrored(m);
    for (int& v : ints) v = static_cast<int>(app_rand() % 1000);
    cl::Buffer dints(context, ints.begin(), ints.end(), true);
    cl::Buffer dmirror(context, CL_MEM_WRITE_ONLY, m * sizeof(int));
    cl::KernelFunctor<cl::Buffer, cl::Buffer, int>(program, "mirror")(
        cl::EnqueueArgs(queue, cl::NDRange(m / 2), cl::NDRange(64)), dints, dmirror, m);
    cl::copy(queue, dmirror, mirrored.begin(), mirrored.end());
    dump("mirror", mirrored);

    struct Particle {
      float x, y;
      cl_int id;
      cl_short flags;
      cl_char tag;
    };
    static_assert(sizeof(Particle) == 16);
    std::vector<Particle> particles(m);
    for (int i = 0; i < m; ++i)
      particles[i] = {app_randf(), app_randf(), i * 7, -1, static_cast<cl_char>(i % 100)};
    cl::Buffer dparticles(context, particles.begin(), particles.end(), false);
    cl::KernelFunctor<cl::Buffer, float> touch(program, "touch_fields");
    touch(cl::EnqueueArgs(queue, cl::NDRange(m), cl::NDRange(64)), dparticles, 0.5f);
    touch(cl::EnqueueArgs(queue, cl::NDRange(m / 2), cl::NDRange(32)), dparticles, -0.25f);
    cl::copy(queue, dparticles, particles.begin(), particles.end());
    dump("particles", particles);

    std::vector<int> sparse(3 * m);
    for (int i = 0; i < 3 * m; ++i) sparse[i] = -i;
    cl::Buffer dsparse(context, sparse.begin(), sparse.end(), false);
    cl::KernelFunctor<cl::Buffer, int, int> strided(program, "strided");
    strided(cl::EnqueueArgs(queue, cl::NDRange(m - 1), cl::NullRange), dsparse, 3, 100000);
    strided(cl::EnqueueArgs(queue, cl::NDRange(m / 2), cl::NDRange(16)), dsparse, 6, 200000);
    cl::copy(queue, dsparse, sparse.begin(), sparse.end());
    dump("strided", sparse);

    if (fp64) {
      std::vector<double> d(n);
      for (double& v : d) v = app_randf() / 3.0;
      cl::Buffer dd(context, d.begin(), d.end(), true);
      cl::Buffer ddout(context, CL_MEM_WRITE_ONLY, n * sizeof(double));
      cl::KernelFunctor<cl::Buffer, cl::Buffer, double>(program, "dscale")(
          cl::EnqueueArgs(queue, cl::NDRange(n)), dd, ddout, 1.0 / 7.0);
      cl::copy(queue, ddout, d.begin(), d.end());
      dump("doubles", d);
    }
  });
}
