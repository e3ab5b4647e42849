// A single-device OpenCL host program with several scenarios. It knows
// nothing of libsplit: tests run it with and without the shim and compare its
// stdout byte for byte. Usage: rt_app <scenario> [size] (size: the soak's launches)
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS  // clGetExtensionFunctionAddress
#include <CL/cl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <thread>
#include <vector>

namespace {

#define CHECK(x)                                                               \
  do {                                                                         \
    cl_int e_ = (x);                                                           \
    if (e_ != CL_SUCCESS) {                                                    \
      fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #x, e_);        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

struct Cl {
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue q;
  Cl() {
    // RT_APP_PLATFORM=N: the N-th platform (a GPU node lists several).
    cl_platform_id platforms[8];
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(8, platforms, &np));
    const char* which = getenv("RT_APP_PLATFORM");
    platform = platforms[which && unsigned(atoi(which)) < np ? atoi(which) : 0];
    // RT_APP_ALL_DEVICES=1: the context holds every device of the platform
    // (the queue still targets the first), as apps written for "all GPUs".
    cl_device_id all[8];
    cl_uint n = 1;
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 8, all, &n));
    device = all[0];
    if (!getenv("RT_APP_ALL_DEVICES")) n = 1;
    cl_int err;
    ctx = clCreateContext(nullptr, n, all, nullptr, nullptr, &err);
    CHECK(err);
    // RT_APP_NO_PROFILING=1: an ordinary queue (profiling is the default here).
    q = clCreateCommandQueue(ctx, device, getenv("RT_APP_NO_PROFILING") ? 0 : CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
  }
  ~Cl() {
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
  }
  cl_program build(const char* src, const char* options = "") {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
    CHECK(err);
    // RT_APP_ALL_DEVICES: built for every device of the context, as such
    // apps do (no device list).
    const bool all = getenv("RT_APP_ALL_DEVICES") != nullptr;
    if (clBuildProgram(p, all ? 0 : 1, all ? nullptr : &device, options, nullptr, nullptr) != CL_SUCCESS) {
      char log[4096] = {0};
      clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, nullptr);
      fprintf(stderr, "build failed: %s\n", log);
      exit(1);
    }
    return p;
  }
  cl_kernel kernel(cl_program p, const char* name) {
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    CHECK(err);
    return k;
  }
  cl_mem buffer(cl_mem_flags flags, size_t size, void* host = nullptr) {
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, flags, size, host, &err);
    CHECK(err);
    return m;
  }
};

template <class T>
void print(const char* label, const std::vector<T>& v) {
  printf("%s:", label);
  const unsigned char* b = reinterpret_cast<const unsigned char*>(v.data());
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < v.size() * sizeof(T); ++i) h = (h ^ b[i]) * 1099511628211ull;
  printf(" n=%zu fnv=%016llx first=", v.size(), static_cast<unsigned long long>(h));
  for (size_t i = 0; i < v.size() && i < 6; ++i) printf("%s ", std::to_string(v[i]).c_str());
  printf("\n");
  if (getenv("RT_APP_DUMP"))  // every value, for bisecting a difference
    for (size_t i = 0; i < v.size(); ++i) printf("%s[%zu] = %a\n", label, i, static_cast<double>(v[i]));
}

// Releases what a scenario created: an app that leaks its OpenCL objects
// leaks the shim's objects of them too (the sanitizer runs report those).
void release(std::initializer_list<cl_mem> mems, std::initializer_list<cl_kernel> kernels,
             std::initializer_list<cl_program> programs) {
  for (cl_mem m : mems) clReleaseMemObject(m);
  for (cl_kernel k : kernels) clReleaseKernel(k);
  for (cl_program p : programs) clReleaseProgram(p);
}

const char* kVecAdd = R"(
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, uint n) {
  size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] * 1.5f + b[i];
})";

int vecadd(Cl& cl) {
  const unsigned n = 1 << 14;
  std::vector<float> a(n), b(n), c(n);
  for (unsigned i = 0; i < n; ++i) a[i] = i * 0.25f, b[i] = 1.0f / (i + 1);
  cl_program p = cl.build(kVecAdd);
  cl_kernel k = cl.kernel(p, "vadd");
  cl_mem da = cl.buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, a.data());
  cl_mem db = cl.buffer(CL_MEM_READ_ONLY, n * 4);
  cl_mem dc = cl.buffer(CL_MEM_WRITE_ONLY, n * 4);
  CHECK(clEnqueueWriteBuffer(cl.q, db, CL_TRUE, 0, n * 4, b.data(), 0, nullptr, nullptr));
  CHECK(clSetKernelArg(k, 0, sizeof da, &da));
  CHECK(clSetKernelArg(k, 1, sizeof db, &db));
  CHECK(clSetKernelArg(k, 2, sizeof dc, &dc));
  CHECK(clSetKernelArg(k, 3, sizeof n, &n));
  size_t global = n, local = 64;
  cl_event ev;
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, &ev));
  CHECK(clEnqueueReadBuffer(cl.q, dc, CL_TRUE, 0, n * 4, c.data(), 0, nullptr, nullptr));
  cl_ulong t0 = 0, t1 = 0;
  CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr));
  CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr));
  printf("profiling ordered: %d\n", t1 >= t0 && t0 > 0);
  print("c", c);
  // Second launch, NULL local size, offset.
  size_t offset = 128, global2 = n - 256;
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, &offset, &global2, nullptr, 0, nullptr, nullptr));
  CHECK(clFinish(cl.q));
  CHECK(clEnqueueReadBuffer(cl.q, dc, CL_TRUE, 0, n * 4, c.data(), 0, nullptr, nullptr));
  print("c2", c);
  clReleaseEvent(ev);
  clReleaseMemObject(da);
  clReleaseMemObject(db);
  clReleaseMemObject(dc);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}


const char* kTwoD = R"(
__kernel void flip(__global const float* in, __global float* out, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  out[y * w + x] = in[(h - 1 - y) * w + x] + x * 0.5f + y;
})";

int twod(Cl& cl) {
  const int w = 96, h = 64;
  std::vector<float> in(w * h), out(w * h);
  for (int i = 0; i < w * h; ++i) in[i] = std::sin(i * 0.01f);
  cl_program p = cl.build(kTwoD);
  cl_kernel k = cl.kernel(p, "flip");
  cl_mem din = cl.buffer(CL_MEM_COPY_HOST_PTR, in.size() * 4, in.data());
  cl_mem dout = cl.buffer(CL_MEM_READ_WRITE, out.size() * 4);
  CHECK(clSetKernelArg(k, 0, sizeof din, &din));
  CHECK(clSetKernelArg(k, 1, sizeof dout, &dout));
  CHECK(clSetKernelArg(k, 2, sizeof w, &w));
  CHECK(clSetKernelArg(k, 3, sizeof h, &h));
  size_t global[2] = {w, h}, local[2] = {8, 8};
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 2, nullptr, global, local, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(cl.q, dout, CL_TRUE, 0, out.size() * 4, out.data(), 0, nullptr, nullptr));
  print("out", out);
  release({din, dout}, {k}, {p});
  return 0;
}

const char* kStencil = R"(
__kernel void smooth(__global const float* a, __global float* b, int n) {
  int i = get_global_id(0);
  float l = a[i > 0 ? i - 1 : 0], r = a[i + 1 < n ? i + 1 : n - 1];
  b[i] = (l + a[i] + r) / 3.0f + 0.001f * i;
})";

int iterative(Cl& cl) {
  const int n = 4096;
  std::vector<float> a(n);
  for (int i = 0; i < n; ++i) a[i] = (i % 17) * 1.0f;
  cl_program p = cl.build(kStencil);
  cl_kernel k = cl.kernel(p, "smooth");
  cl_mem x = cl.buffer(CL_MEM_COPY_HOST_PTR, n * 4, a.data());
  cl_mem y = cl.buffer(CL_MEM_READ_WRITE, n * 4);
  CHECK(clSetKernelArg(k, 2, sizeof n, &n));
  size_t global = n, local = 32;
  const int iters = getenv("RT_APP_ITERS") ? atoi(getenv("RT_APP_ITERS")) : 12;
  for (int it = 0; it < iters; ++it) {
    CHECK(clSetKernelArg(k, 0, sizeof x, &x));
    CHECK(clSetKernelArg(k, 1, sizeof y, &y));
    CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    std::swap(x, y);
    if (it == 5) {  // a host read in the middle
      CHECK(clEnqueueReadBuffer(cl.q, x, CL_TRUE, 0, n * 4, a.data(), 0, nullptr, nullptr));
      print("mid", a);
    }
  }
  CHECK(clEnqueueReadBuffer(cl.q, x, CL_TRUE, 0, n * 4, a.data(), 0, nullptr, nullptr));
  print("final", a);
  release({x, y}, {k}, {p});
  return 0;
}

const char* kBurn = R"(
__kernel void burn(__global float* x, int reps) {
  int i = get_global_id(0);
  float v = x[i];
  for (int r = 0; r < reps; ++r) v = v * 0.999f + sin(v) * 0.001f;
  x[i] = v;
})";

// A compute-bound kernel launched RT_APP_ITERS times (default 30) on the
// same buffer: enough work per launch for the schedulers to measure.
int load(Cl& cl) {
  const int n = 16384, reps = getenv("RT_APP_REPS") ? atoi(getenv("RT_APP_REPS")) : 20;
  std::vector<float> a(n);
  for (int i = 0; i < n; ++i) a[i] = (i % 101) * 0.01f;
  cl_program p = cl.build(kBurn);
  cl_kernel k = cl.kernel(p, "burn");
  cl_mem x = cl.buffer(CL_MEM_COPY_HOST_PTR, n * 4, a.data());
  CHECK(clSetKernelArg(k, 0, sizeof x, &x));
  CHECK(clSetKernelArg(k, 1, sizeof reps, &reps));
  size_t global = n, local = 64;
  const int iters = getenv("RT_APP_ITERS") ? atoi(getenv("RT_APP_ITERS")) : 30;
  for (int it = 0; it < iters; ++it) {
    CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clFinish(cl.q));
  }
  CHECK(clEnqueueReadBuffer(cl.q, x, CL_TRUE, 0, n * 4, a.data(), 0, nullptr, nullptr));
  print("final", a);
  release({x}, {k}, {p});
  return 0;
}

// Sums of every 256th element of each column of a row-major matrix: a cheap
// kernel, but one work-group's region spans (nearly) the whole matrix.
const char* kColumnSums = R"(
__kernel void column_sums(__global float* sums, __global const float* m, int rows, int cols) {
  int j = get_global_id(0);
  float s = 0.0f;
  for (int i = 0; i < rows; i += 256) s += m[i * cols + j];
  sums[j] = s;
})";

int columns(Cl& cl) {
  const int rows = 2048, cols = 8192;
  std::vector<float> m(size_t(rows) * cols), sums(cols);
  for (size_t i = 0; i < m.size(); ++i) m[i] = float(i % 97) * 0.5f;
  cl_program p = cl.build(kColumnSums);
  cl_kernel k = cl.kernel(p, "column_sums");
  cl_mem out = cl.buffer(CL_MEM_WRITE_ONLY, cols * 4);
  cl_mem in = cl.buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, m.size() * 4, m.data());
  CHECK(clSetKernelArg(k, 0, sizeof out, &out));
  CHECK(clSetKernelArg(k, 1, sizeof in, &in));
  CHECK(clSetKernelArg(k, 2, sizeof rows, &rows));
  CHECK(clSetKernelArg(k, 3, sizeof cols, &cols));
  size_t global = cols, local = 64;
  for (int it = 0; it < 12; ++it) {
    CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clFinish(cl.q));
  }
  CHECK(clEnqueueReadBuffer(cl.q, out, CL_TRUE, 0, cols * 4, sums.data(), 0, nullptr, nullptr));
  print("sums", sums);
  release({out, in}, {k}, {p});
  return 0;
}

const char* kWindow = R"(
__kernel void window(__global const float* src, __global float* dst, int shift) {
  int i = get_global_id(0);
  dst[i] = src[i + shift] * 2.0f;
})";

// The same launch shape with a scalar that moves the bytes each slice reads
// (shift): every launch must stage its own window, never the last one's.
int window(Cl& cl) {
  const int n = 1 << 16;
  std::vector<float> src(2 * size_t(n)), dst(n);
  for (size_t i = 0; i < src.size(); ++i) src[i] = float(i % 1013) * 0.25f;
  cl_program p = cl.build(kWindow);
  cl_kernel k = cl.kernel(p, "window");
  cl_mem in = cl.buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, src.size() * 4, src.data());
  cl_mem out = cl.buffer(CL_MEM_WRITE_ONLY, size_t(n) * 4);
  CHECK(clSetKernelArg(k, 0, sizeof in, &in));
  CHECK(clSetKernelArg(k, 1, sizeof out, &out));
  size_t global = n, local = 64;
  for (int shift : {0, 0, 777, 40000, 40000, 3, 65536, 0}) {
    CHECK(clSetKernelArg(k, 2, sizeof shift, &shift));
    CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(cl.q, out, CL_TRUE, 0, size_t(n) * 4, dst.data(), 0, nullptr, nullptr));
    print(("shift " + std::to_string(shift)).c_str(), dst);
  }
  release({out, in}, {k}, {p});
  return 0;
}

const char* kMirror = R"(
__kernel void fill(__global float* x, float k) {
  int i = get_global_id(0);
  x[i] = k * (float)(i % 331);
}
__kernel void mirror(__global const float* x, __global float* y) {
  int i = get_global_id(0), n = get_global_size(0);
  y[i] = x[i] + 0.5f * x[n - 1 - i];
})";

// Every slice of `mirror` reads the mirror image of its own part of x, which
// another device wrote: an all-gather, each device needing bytes from the
// others before the launch.
int mirror(Cl& cl) {
  const int n = 1 << 16;
  std::vector<float> y(n);
  cl_program p = cl.build(kMirror);
  cl_kernel fill = cl.kernel(p, "fill"), mir = cl.kernel(p, "mirror");
  cl_mem x = cl.buffer(CL_MEM_READ_WRITE, size_t(n) * 4);
  cl_mem out = cl.buffer(CL_MEM_WRITE_ONLY, size_t(n) * 4);
  CHECK(clSetKernelArg(fill, 0, sizeof x, &x));
  CHECK(clSetKernelArg(mir, 0, sizeof x, &x));
  CHECK(clSetKernelArg(mir, 1, sizeof out, &out));
  size_t global = n, local = 64;
  for (int it = 1; it <= 6; ++it) {
    const float k = 0.25f * float(it);
    CHECK(clSetKernelArg(fill, 1, sizeof k, &k));
    CHECK(clEnqueueNDRangeKernel(cl.q, fill, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clEnqueueNDRangeKernel(cl.q, mir, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(cl.q, out, CL_TRUE, 0, size_t(n) * 4, y.data(), 0, nullptr, nullptr));
    print(("mirror " + std::to_string(it)).c_str(), y);
  }
  release({out, x}, {fill, mir}, {p});
  return 0;
}

const char* kScale = R"(
__kernel void scale(__global int* x, int f, int add) {
  int i = get_global_id(0);
  x[i] = x[i] * f + add;
})";

// kScale's kernel over buffer m: x = x * f + add.
cl_kernel scale_kernel(Cl& cl, cl_program p, cl_mem m, int f, int add) {
  cl_kernel k = cl.kernel(p, "scale");
  CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CHECK(clSetKernelArg(k, 1, sizeof f, &f));
  CHECK(clSetKernelArg(k, 2, sizeof add, &add));
  return k;
}

int rw(Cl& cl) {
  const int n = 2048;
  std::vector<int> host(n), out(n);
  for (int i = 0; i < n; ++i) host[i] = i;
  cl_program p = cl.build(kScale);
  cl_kernel k = cl.kernel(p, "scale");
  cl_mem m = cl.buffer(CL_MEM_USE_HOST_PTR, n * 4, host.data());
  int f = 3, add = 1;
  CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CHECK(clSetKernelArg(k, 1, sizeof f, &f));
  CHECK(clSetKernelArg(k, 2, sizeof add, &add));
  size_t global = n, local = 16;
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  cl_int err;
  int* mapped = static_cast<int*>(clEnqueueMapBuffer(cl.q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                                     0, n * 4, 0, nullptr, nullptr, &err));
  CHECK(err);
  printf("map is host ptr: %d\n", mapped == host.data());
  for (int i = 0; i < n; i += 7) mapped[i] = -i;
  CHECK(clEnqueueUnmapMemObject(cl.q, m, mapped, 0, nullptr, nullptr));
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  print("after map", out);
  // Copy, fill, rect, sub-buffer.
  cl_mem c = cl.buffer(CL_MEM_READ_WRITE, n * 4);
  int pattern[2] = {7, -7};
  CHECK(clEnqueueFillBuffer(cl.q, c, pattern, sizeof pattern, 0, n * 4, 0, nullptr, nullptr));
  CHECK(clEnqueueCopyBuffer(cl.q, m, c, 64, 256, 1024, 0, nullptr, nullptr));
  size_t b_origin[3] = {16, 2, 0}, h_origin[3] = {0, 0, 0}, region[3] = {64, 5, 1};
  std::vector<int> rect(16 * 5, 99);
  CHECK(clEnqueueWriteBufferRect(cl.q, c, CL_FALSE, b_origin, h_origin, region, 256, 0, 64, 0,
                                 rect.data(), 0, nullptr, nullptr));
  CHECK(clSetKernelArg(k, 0, sizeof c, &c));
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  cl_buffer_region sub_region = {1024, 2048};
  cl_mem sub = clCreateSubBuffer(c, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &sub_region, &err);
  CHECK(err);
  CHECK(clSetKernelArg(k, 0, sizeof sub, &sub));
  size_t sub_global = 512;
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &sub_global, &local, 0, nullptr, nullptr));
  size_t src_origin[3] = {0, 1, 0}, dst_origin[3] = {32, 0, 0}, r2[3] = {32, 3, 2};
  CHECK(clEnqueueCopyBufferRect(cl.q, c, m, src_origin, dst_origin, r2, 128, 512, 96, 480, 0,
                                nullptr, nullptr));
  std::vector<int> rect_out(8 * 4);
  size_t rb_origin[3] = {8, 3, 0}, rregion[3] = {32, 4, 1};
  CHECK(clEnqueueReadBufferRect(cl.q, c, CL_TRUE, rb_origin, h_origin, rregion, 200, 0, 32, 0,
                                rect_out.data(), 0, nullptr, nullptr));
  print("rect", rect_out);
  CHECK(clEnqueueReadBuffer(cl.q, c, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  print("c", out);
  CHECK(clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  print("m", out);
  // USE_HOST_PTR: the host memory holds the contents while mapped.
  int* whole = static_cast<int*>(clEnqueueMapBuffer(cl.q, m, CL_TRUE, CL_MAP_READ, 0, n * 4, 0,
                                                    nullptr, nullptr, &err));
  CHECK(err);
  printf("map is host ptr: %d\n", whole == host.data());
  print("host", host);
  CHECK(clEnqueueUnmapMemObject(cl.q, m, whole, 0, nullptr, nullptr));
  CHECK(clFinish(cl.q));
  clReleaseMemObject(sub);
  clReleaseMemObject(c);
  clReleaseMemObject(m);
  release({}, {k}, {p});
  return 0;
}

const char* kScatter = R"(
__kernel void scatter(__global const int* perm, __global const float* in, __global float* out) {
  int i = get_global_id(0);
  out[perm[i]] = in[i] * 3.0f;
})";

int merge(Cl& cl) {
  const int n = 4096;
  std::vector<int> perm(n);
  std::vector<float> in(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) perm[i] = (i * 1237) % n, in[i] = i * 0.5f;
  cl_program p = cl.build(kScatter);
  cl_kernel k = cl.kernel(p, "scatter");
  cl_mem dp = cl.buffer(CL_MEM_COPY_HOST_PTR, n * 4, perm.data());
  cl_mem di = cl.buffer(CL_MEM_COPY_HOST_PTR, n * 4, in.data());
  cl_mem dout = cl.buffer(CL_MEM_COPY_HOST_PTR, n * 4 * 2, std::vector<float>(2 * n, 5.0f).data());
  CHECK(clSetKernelArg(k, 0, sizeof dp, &dp));
  CHECK(clSetKernelArg(k, 1, sizeof di, &di));
  CHECK(clSetKernelArg(k, 2, sizeof dout, &dout));
  size_t global = n / 2, local = 64;  // half of the items: half of out keeps 5.0
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  std::vector<float> all(2 * n);
  CHECK(clEnqueueReadBuffer(cl.q, dout, CL_TRUE, 0, all.size() * 4, all.data(), 0, nullptr, nullptr));
  print("out", all);
  release({dp, di, dout}, {k}, {p});
  return 0;
}

// Buffers created without host data: their contents are undefined until
// written, so nothing needs uploading for them. A direct fill (exact
// regions) and a scatter through an index (diff merge) over two such
// buffers; every byte is written before the app reads it back.
const char* kFill = R"(
__kernel void fill(__global float* out) {
  int i = get_global_id(0);
  out[i] = i * 0.5f;
})";

int output(Cl& cl) {
  const int n = 4096;
  std::vector<int> perm(n);
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) perm[i] = (i * 1237) % n, in[i] = (i % 7) * 0.5f;
  cl_program pf = cl.build(kFill), ps = cl.build(kScatter);
  cl_kernel fill = cl.kernel(pf, "fill"), scatter = cl.kernel(ps, "scatter");
  cl_mem filled = cl.buffer(CL_MEM_WRITE_ONLY, 3 * n * 4);  // 49152 bytes: found in the log
  cl_mem dp = cl.buffer(CL_MEM_COPY_HOST_PTR, n * 4, perm.data());
  cl_mem di = cl.buffer(CL_MEM_COPY_HOST_PTR, n * 4, in.data());
  cl_mem scattered = cl.buffer(CL_MEM_READ_WRITE, n * 4);
  CHECK(clSetKernelArg(fill, 0, sizeof filled, &filled));
  CHECK(clSetKernelArg(scatter, 0, sizeof dp, &dp));
  CHECK(clSetKernelArg(scatter, 1, sizeof di, &di));
  CHECK(clSetKernelArg(scatter, 2, sizeof scattered, &scattered));
  size_t global_fill = 3 * n, global = n, local = 64;
  CHECK(clEnqueueNDRangeKernel(cl.q, fill, 1, nullptr, &global_fill, &local, 0, nullptr, nullptr));
  CHECK(clEnqueueNDRangeKernel(cl.q, scatter, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  std::vector<float> a(3 * n), b(n);
  CHECK(clEnqueueReadBuffer(cl.q, filled, CL_TRUE, 0, a.size() * 4, a.data(), 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(cl.q, scattered, CL_TRUE, 0, b.size() * 4, b.data(), 0, nullptr, nullptr));
  print("filled", a);
  print("scattered", b);
  release({filled, dp, di, scattered}, {fill, scatter}, {pf, ps});
  return 0;
}

// A marker and clFinish after a kernel enqueued without an event must wait
// for it. Times on stderr (the test compares them with the native run's).
const char* kSpin = R"(
__kernel void spin(__global float* x, int n) {
  int i = get_global_id(0);
  float v = x[i];
  for (int k = 0; k < n; ++k) v = v * 0.999f + 0.001f;
  x[i] = v;
})";

int order(Cl& cl) {
  const int items = 4096, n = 40000;
  std::vector<float> x(items, 1.0f);
  cl_program p = cl.build(kSpin);
  cl_kernel k = cl.kernel(p, "spin");
  cl_mem m = cl.buffer(CL_MEM_COPY_HOST_PTR, items * 4, x.data());
  CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CHECK(clSetKernelArg(k, 1, sizeof n, &n));
  size_t global = items, local = 64;
  auto ms_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  };
  // The first launch includes the driver's compile (PoCL: at enqueue).
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clFinish(cl.q));
  auto t = std::chrono::steady_clock::now();
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  const double enqueue_ms = ms_since(t);
  cl_event marker;
  CHECK(clEnqueueMarkerWithWaitList(cl.q, 0, nullptr, &marker));
  CHECK(clWaitForEvents(1, &marker));
  const double marker_ms = ms_since(t);
  cl_int status = 0;
  CHECK(clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  clReleaseEvent(marker);
  t = std::chrono::steady_clock::now();
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clFinish(cl.q));
  const double finish_ms = ms_since(t);
  CHECK(clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, items * 4, x.data(), 0, nullptr, nullptr));
  print("x", x);
  printf("marker status %d\n", status);
  fprintf(stderr, "marker_ms=%.1f finish_ms=%.1f enqueue_ms=%.1f\n", marker_ms, finish_ms, enqueue_ms);
  release({m}, {k}, {p});
  return 0;
}

// A kernel whose name has 252 characters (PoCL 3.1 natively fails to link
// names of 254 and more; the CTS's kernel_name_size goes near that limit).
int longname(Cl& cl) {
  const std::string name = "k" + std::string(251, 'a');
  const std::string src = "__kernel void " + name +
                          "(__global int* x) { int i = get_global_id(0); x[i] = x[i] * 3 + i; }";
  cl_program p = cl.build(src.c_str());
  cl_kernel k = cl.kernel(p, name.c_str());
  const int n = 1024;
  std::vector<int> x(n, 5);
  cl_mem m = cl.buffer(CL_MEM_COPY_HOST_PTR, n * 4, x.data());
  CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t global = n, local = 64;
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, n * 4, x.data(), 0, nullptr, nullptr));
  print("x", x);
  // Names past the file-name limit (CTS kernel_name_size): built, named and
  // queried but never launched (PoCL 3.1 cannot build their binaries, so the
  // shim must never ask for them; natively nobody does).
  for (size_t length : {256, 2048}) {
    const std::string longer(length, 'b');
    const std::string source = "__kernel void " + longer + "(int v, __global int* x) { x[0] = v; }";
    cl_program q = cl.build(source.c_str());
    cl_kernel named = cl.kernel(q, longer.c_str());
    size_t n = 0;
    CHECK(clGetKernelInfo(named, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &n));
    std::string got(n, '\0');
    CHECK(clGetKernelInfo(named, CL_KERNEL_FUNCTION_NAME, n, got.data(), nullptr));
    printf("name %zu %s\n", length, got.c_str() == longer ? "same" : "different");
    release({}, {named}, {q});
  }
  release({m}, {k}, {p});
  return 0;
}

int trap(Cl& cl) {
  // The app changes its source array after the write completed and before
  // the kernel runs: the kernel must see the values of the write.
  const int n = 4096;
  std::vector<int> src(n);
  for (int i = 0; i < n; ++i) src[i] = i;
  cl_program p = cl.build(kScale);
  cl_kernel k = cl.kernel(p, "scale");
  cl_mem m = cl.buffer(CL_MEM_READ_WRITE, n * 4);
  cl_event written;
  CHECK(clEnqueueWriteBuffer(cl.q, m, CL_FALSE, 0, n * 4, src.data(), 0, nullptr, &written));
  CHECK(clWaitForEvents(1, &written));
  for (int i = 0; i < n; ++i) src[i] = -1000;  // after completion: allowed
  int f = 2, add = 5;
  CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CHECK(clSetKernelArg(k, 1, sizeof f, &f));
  CHECK(clSetKernelArg(k, 2, sizeof add, &add));
  size_t global = n, local = 64;
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  std::vector<int> out(n);
  CHECK(clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  print("out", out);
  // Blocking write of a page-aligned array, modified right after the call.
  std::vector<int> src2(n, 3);
  CHECK(clEnqueueWriteBuffer(cl.q, m, CL_TRUE, 0, n * 4, src2.data(), 0, nullptr, nullptr));
  src2.assign(n, 77);
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  print("out2", out);
  clReleaseEvent(written);
  release({m}, {k}, {p});
  return 0;
}

const char* kGroups = R"(
__kernel void groups(__global int* out) {
  size_t i = get_global_id(0) - get_global_offset(0);
  out[i] = get_group_id(0) * 100000 + get_num_groups(0) * 100 + get_local_id(0) + get_global_size(0) * 3;
})";

int groups(Cl& cl) {
  const int n = 1024;
  cl_program p = cl.build(kGroups);
  cl_kernel k = cl.kernel(p, "groups");
  cl_mem m = cl.buffer(CL_MEM_READ_WRITE, n * 4);
  CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t global = n, local = 32, offset = 64;
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, &offset, &global, &local, 0, nullptr, nullptr));
  std::vector<int> out(n);
  CHECK(clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  print("out", out);
  release({m}, {k}, {p});
  return 0;
}

void CL_CALLBACK count_callback(cl_event, cl_int status, void* user) {
  if (status == CL_COMPLETE) __atomic_add_fetch(static_cast<int*>(user), 1, __ATOMIC_RELEASE);
}

int events(Cl& cl) {
  const int n = 1024;
  std::vector<int> a(n, 4), out(n);
  cl_int err;
  cl_event gate = clCreateUserEvent(cl.ctx, &err);
  CHECK(err);
  cl_program p = cl.build(kScale);
  cl_kernel k = cl.kernel(p, "scale");
  cl_mem m = cl.buffer(CL_MEM_READ_WRITE, n * 4);
  cl_event w, kev, marker;
  // PoCL 3.1 hangs when a user event gates queued commands (seen here), so
  // the native comparison only uses an already complete user event; the
  // "gate" scenario checks gating under the shim.
  const bool gated = getenv("RT_APP_GATE") != nullptr;
  if (!gated) CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CHECK(clEnqueueWriteBuffer(cl.q, m, CL_FALSE, 0, n * 4, a.data(), 1, &gate, &w));
  cl_int status = 0;
  if (gated) {
    CHECK(clGetEventInfo(w, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
    printf("write waits for the gate: %d\n", status > CL_COMPLETE);
    CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  }
  CHECK(clWaitForEvents(1, &w));
  int f = 5, add = -1;
  CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CHECK(clSetKernelArg(k, 1, sizeof f, &f));
  CHECK(clSetKernelArg(k, 2, sizeof add, &add));
  size_t global = n, local = 64;
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 1, &w, &kev));
  int completed = 0;
  CHECK(clSetEventCallback(kev, CL_COMPLETE, count_callback, &completed));
  CHECK(clEnqueueMarkerWithWaitList(cl.q, 0, nullptr, &marker));
  CHECK(clFlush(cl.q));
  CHECK(clWaitForEvents(1, &marker));
  CHECK(clGetEventInfo(kev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  printf("kernel complete after marker: %d\n", status == CL_COMPLETE);
  CHECK(clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  CHECK(clFinish(cl.q));
  // Callbacks are asynchronous: give a native runtime time to call it.
  for (int spin = 0; spin < 2000 && __atomic_load_n(&completed, __ATOMIC_ACQUIRE) == 0; ++spin)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  printf("callbacks: %d\n", __atomic_load_n(&completed, __ATOMIC_ACQUIRE));
  cl_command_type type = 0;
  CHECK(clGetEventInfo(kev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  printf("type ndrange: %d\n", type == CL_COMMAND_NDRANGE_KERNEL);
  print("out", out);
  // A second queue in the same context sees the data.
  cl_command_queue q2 = clCreateCommandQueue(cl.ctx, cl.device, 0, &err);
  CHECK(err);
  CHECK(clEnqueueNDRangeKernel(q2, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(q2, m, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  print("q2", out);
  clReleaseCommandQueue(q2);
  for (cl_event e : {gate, w, kev, marker}) clReleaseEvent(e);
  release({m}, {k}, {p});
  return 0;
}

// A racy kernel (OpenCL allows any writer's value, never a mix): the first
// and the last work-group store different floats and doubles to the same
// elements, and every group stores one char to its own byte of a buffer whose
// write region the analysis can only give whole (a loop over every byte).
// The starting values share bytes with the last group's, so a merge byte by
// byte would show the first group's bytes through: a value nobody wrote.
const char* kRacy = R"(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void racy(__global float* f, __global double* d, __global uchar* c, uint n) {
  uint g = get_group_id(0), last = get_num_groups(0) - 1;
  if (get_local_id(0) != 0) return;
  if (g == 0 || g == last) {
    for (int i = 0; i < 8; ++i) {
      f[i] = as_float(g == 0 ? 0x40123456u + i : 0x416C1234u + i);
      d[i] = as_double(g == 0 ? 0x4012345678123456ul + i : 0x40AABBCC11DDEE00ul + i);
    }
  }
  for (uint i = 0; i < n; ++i)
    if (i == g) c[i] = (uchar)(g + 1);
})";

int racy(Cl& cl) {
  const unsigned groups = 8, local = 64;
  std::vector<float> f(8);
  std::vector<double> d(8);
  std::vector<unsigned char> c(groups, 0);
  for (int i = 0; i < 8; ++i) {
    const uint32_t fb = 0x3F6C3E3Eu;  // shares byte 2 (0x6C) with the last group's floats
    const uint64_t db = 0x40AA000000000000ull;  // shares bytes 6-7 with its doubles
    memcpy(&f[i], &fb, 4);
    memcpy(&d[i], &db, 8);
  }
  cl_program p = cl.build(kRacy);
  cl_kernel k = cl.kernel(p, "racy");
  cl_mem mf = cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 8 * 4, f.data());
  cl_mem md = cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 8 * 8, d.data());
  cl_mem mc = cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, groups, c.data());
  CHECK(clSetKernelArg(k, 0, sizeof mf, &mf));
  CHECK(clSetKernelArg(k, 1, sizeof md, &md));
  CHECK(clSetKernelArg(k, 2, sizeof mc, &mc));
  CHECK(clSetKernelArg(k, 3, sizeof groups, &groups));
  size_t global = groups * local, lsize = local;
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &lsize, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(cl.q, mf, CL_TRUE, 0, 8 * 4, f.data(), 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(cl.q, md, CL_TRUE, 0, 8 * 8, d.data(), 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(cl.q, mc, CL_TRUE, 0, groups, c.data(), 0, nullptr, nullptr));
  bool floats_whole = true, doubles_whole = true, chars_kept = true;
  for (uint32_t i = 0; i < 8; ++i) {
    uint32_t fb;
    uint64_t db;
    memcpy(&fb, &f[i], 4);
    memcpy(&db, &d[i], 8);
    if (fb != 0x40123456u + i && fb != 0x416C1234u + i) {
      floats_whole = false;
      fprintf(stderr, "f[%u] = 0x%08x: no writer's value\n", i, fb);
    }
    if (db != 0x4012345678123456ull + i && db != 0x40AABBCC11DDEE00ull + i) {
      doubles_whole = false;
      fprintf(stderr, "d[%u] = 0x%016llx: no writer's value\n", i, static_cast<unsigned long long>(db));
    }
  }
  for (unsigned g = 0; g < groups; ++g) chars_kept = chars_kept && c[g] == g + 1;
  printf("every float one writer's whole value: %d\n", floats_whole);
  printf("every double one writer's whole value: %d\n", doubles_whole);
  printf("every char store kept: %d\n", chars_kept);
  print("chars", c);
  for (cl_mem m : {mf, md, mc}) clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

// Results printed from the app's own USE_HOST_PTR memory, never read or
// mapped, after each kind of wait (Rodinia's pathfinder): on a device that
// shares host memory that memory is the buffer.
int usehost(Cl& cl) {
  const unsigned n = 1 << 12;
  std::vector<int> mine(n, 2), other(n, 1);
  cl_program p = cl.build(kScale);
  cl_mem m = cl.buffer(CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n * 4, mine.data());
  cl_mem o = cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, other.data());
  cl_kernel k = scale_kernel(cl, p, m, 3, 1);
  size_t global = n, local = 64;
  for (int i = 0; i < 3; ++i) CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clFinish(cl.q));
  print("after clFinish", mine);
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(cl.q, o, CL_TRUE, 0, n * 4, other.data(), 0, nullptr, nullptr));
  print("after a blocking read of another buffer", mine);
  cl_event e;
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, &e));
  CHECK(clWaitForEvents(1, &e));
  clReleaseEvent(e);
  print("after clWaitForEvents", mine);
  // Released while its last launch may still run: the memory still gets
  // what the launch wrote (natively it is the buffer).
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  clReleaseMemObject(m);
  CHECK(clFinish(cl.q));
  print("after its release and clFinish", mine);
  clReleaseMemObject(o);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

// Launches whose events the app never asks for, each followed by a blocking
// read (clpeak's pattern); RT_APP_KEEP_EVENTS=1 keeps and reads them instead.
int noevent(Cl& cl) {
  const int n = 1 << 12;
  std::vector<int> out(n, 1);
  cl_program p = cl.build(kScale);
  cl_mem m = cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, out.data());
  cl_kernel k = scale_kernel(cl, p, m, 3, 1);
  const bool keep = getenv("RT_APP_KEEP_EVENTS") != nullptr;
  size_t global = n, local = 64;
  for (int i = 0; i < 6; ++i) {
    cl_event e = nullptr;
    CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, keep ? &e : nullptr));
    // The kernel ends while the app does something else: the driver's
    // completion callback, not the read, sees it end first.
    CHECK(clFlush(cl.q));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    CHECK(clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
    if (e) {
      cl_int status = 0;
      CHECK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
      printf("launch %d complete after the read: %d\n", i, status == CL_COMPLETE);
      clReleaseEvent(e);
    }
  }
  print("out", out);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

// A long split launch, its input rewritten without waiting between launches:
// the enqueue returns before the kernel ends (natively, and under the shim
// whose split launches are asynchronous), each launch sees the bytes written
// just before it (the host copy a queued write to a device still reads from
// is not overwritten under it), and the events complete in order.
const char* kHash = R"(
__kernel void spin(__global const uint* in, __global uint* out, uint rounds) {
  size_t i = get_global_id(0);
  uint x = in[i];
  for (uint r = 0; r < rounds; ++r) x = x * 1664525u + 1013904223u + (x >> 7);
  out[i] = x;
}
)";

int async(Cl& cl) {
  // RT_APP_LAUNCHES: how many (more than libsplit keeps unread: its reader's
  // bound); RT_APP_WRITE_ONCE: the input written before the first only (no
  // write between launches to wait for the ones before).
  const int n = 1 << 14, launches = getenv("RT_APP_LAUNCHES") ? std::max(2, atoi(getenv("RT_APP_LAUNCHES"))) : 4;
  const bool write_once = getenv("RT_APP_WRITE_ONCE") != nullptr;
  cl_program p = cl.build(kHash);
  cl_kernel k = cl.kernel(p, "spin");
  cl_mem in = cl.buffer(CL_MEM_READ_ONLY, n * 4);
  std::vector<std::vector<cl_uint>> host(launches, std::vector<cl_uint>(n)), out = host;
  std::vector<cl_mem> outs;
  std::vector<cl_event> done(launches);
  // RT_APP_ROUNDS: the kernel's length (the default keeps a 2-core PoCL busy ~0.5 s a launch).
  const cl_uint rounds = getenv("RT_APP_ROUNDS") ? cl_uint(atoi(getenv("RT_APP_ROUNDS"))) : 20000;
  size_t global = n, local = 64;
  for (int l = 0; l < launches; ++l) {
    for (int i = 0; i < n; ++i) host[l][i] = cl_uint(i * 2654435761u) ^ cl_uint(l * 97);
    outs.push_back(cl.buffer(CL_MEM_WRITE_ONLY, n * 4));
    if (l == 0 || !write_once)
      CHECK(clEnqueueWriteBuffer(cl.q, in, CL_FALSE, 0, n * 4, host[l].data(), 0, nullptr, nullptr));
    CHECK(clSetKernelArg(k, 0, sizeof in, &in));
    CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &outs[l]));
    CHECK(clSetKernelArg(k, 2, sizeof rounds, &rounds));
    CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, &done[l]));
    // The second: PoCL compiles the kernel at its first enqueue.
    if (l == 1) {
      cl_int status = 0;
      CHECK(clGetEventInfo(done[1], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
      // On stderr: PoCL's own launch may or may not return complete.
      fprintf(stderr, "second launch complete when its enqueue returned: %d\n", status == CL_COMPLETE);
    }
  }
  CHECK(clWaitForEvents(1, &done[launches - 1]));
  for (int l = 0; l < launches; ++l) {
    cl_int status = 0;
    CHECK(clGetEventInfo(done[l], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
    printf("launch %d complete after waiting for the last: %d\n", l, status == CL_COMPLETE);
    CHECK(clEnqueueReadBuffer(cl.q, outs[l], CL_TRUE, 0, n * 4, out[l].data(), 0, nullptr, nullptr));
    uint64_t sum = 0;
    for (cl_uint v : out[l]) sum = sum * 31 + v;
    printf("launch %d: first %u %u, hash %llu\n", l, out[l][0], out[l][1], (unsigned long long)sum);
    clReleaseEvent(done[l]);
    clReleaseMemObject(outs[l]);
  }
  clReleaseMemObject(in);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

int errors(Cl& cl) {
  cl_int err = 0;
  auto show = [](const char* what, cl_int code) { printf("%s = %d\n", what, code); };
  int dummy[16] = {0};
  // Context types the platform lacks (PoCL: accelerators, custom devices):
  // the error code. (PoCL itself may hand back a half-made context with
  // the error, which aborts when released: not released here.)
  for (cl_device_type type : {cl_device_type(CL_DEVICE_TYPE_ACCELERATOR), cl_device_type(CL_DEVICE_TYPE_CUSTOM)}) {
    clCreateContextFromType(nullptr, type, nullptr, nullptr, &err);
    show(type == CL_DEVICE_TYPE_ACCELERATOR ? "context of accelerators" : "context of custom devices", err);
  }
  clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE, 0, nullptr, &err);
  show("buffer size 0", err);
  clCreateBuffer(cl.ctx, CL_MEM_COPY_HOST_PTR, 64, nullptr, &err);
  show("copy host ptr null", err);
  clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE, 64, dummy, &err);
  show("host ptr without flag", err);
  clCreateBuffer(cl.ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, nullptr, &err);
  show("ro|wo", err);
  clCreateBuffer(nullptr, CL_MEM_READ_WRITE, 64, nullptr, &err);
  show("null context", err);
  cl_mem m = cl.buffer(CL_MEM_READ_WRITE, 64);
  show("read out of range", clEnqueueReadBuffer(cl.q, m, CL_TRUE, 32, 64, dummy, 0, nullptr, nullptr));
  show("read null buffer", clEnqueueReadBuffer(cl.q, nullptr, CL_TRUE, 0, 4, dummy, 0, nullptr, nullptr));
  show("read null ptr", clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, 4, nullptr, 0, nullptr, nullptr));
  show("write null queue", clEnqueueWriteBuffer(nullptr, m, CL_TRUE, 0, 4, dummy, 0, nullptr, nullptr));
  show("wait list mismatch", clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, 4, dummy, 1, nullptr, nullptr));
  show("copy overlap", clEnqueueCopyBuffer(cl.q, m, m, 0, 8, 16, 0, nullptr, nullptr));
  show("fill pattern 3", clEnqueueFillBuffer(cl.q, m, dummy, 3, 0, 12, 0, nullptr, nullptr));
  cl_buffer_region region = {32, 64};
  clCreateSubBuffer(m, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  show("sub-buffer out of range", err);
  cl_uint value;
  show("mem info bad param", clGetMemObjectInfo(m, 0x7777, sizeof value, &value, nullptr));
  show("mem info small", clGetMemObjectInfo(m, CL_MEM_SIZE, 1, &value, nullptr));
  show("release null mem", clReleaseMemObject(nullptr));
  show("finish null", clFinish(nullptr));
  show("wait none", clWaitForEvents(0, nullptr));
  show("unmap bad ptr", clEnqueueUnmapMemObject(cl.q, m, dummy, 0, nullptr, nullptr));
  const char* bad = "__kernel void f(__global int* x) { x[0] = ; }";
  cl_program bp = clCreateProgramWithSource(cl.ctx, 1, &bad, nullptr, &err);
  show("create bad source", err);
  show("build bad source", clBuildProgram(bp, 1, &cl.device, "", nullptr, nullptr));
  cl_build_status bs;
  clGetProgramBuildInfo(bp, cl.device, CL_PROGRAM_BUILD_STATUS, sizeof bs, &bs, nullptr);
  show("build status", bs);
  cl_program p = cl.build(kScale);
  clCreateKernel(p, "nope", &err);
  show("kernel bad name", err);
  cl_kernel k = cl.kernel(p, "scale");
  show("arg index", clSetKernelArg(k, 3, sizeof(int), dummy));
  show("arg size", clSetKernelArg(k, 1, 2, dummy));
  show("arg bad mem", clSetKernelArg(k, 0, sizeof(cl_mem), dummy + 2));
  size_t global = 64, local = 5;
  show("launch unset args", clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CHECK(clSetKernelArg(k, 1, sizeof(int), dummy));
  CHECK(clSetKernelArg(k, 2, sizeof(int), dummy));
  show("launch dim 0", clEnqueueNDRangeKernel(cl.q, k, 0, nullptr, &global, nullptr, 0, nullptr, nullptr));
  show("launch local 5", clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  local = 1 << 20;
  show("launch local huge", clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  cl_event user = clCreateUserEvent(cl.ctx, &err);
  show("user event", err);
  show("user status 1", clSetUserEventStatus(user, CL_COMPLETE));
  show("user status 2", clSetUserEventStatus(user, CL_COMPLETE));
  show("user profiling", clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_START, 8, dummy, nullptr));
  cl_command_queue plain = clCreateCommandQueue(cl.ctx, cl.device, 0, &err);
  cl_event e;
  CHECK(clEnqueueMarkerWithWaitList(plain, 0, nullptr, &e));
  CHECK(clFinish(plain));
  show("no profiling", clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, 8, dummy, nullptr));
  clCreateCommandQueue(nullptr, cl.device, 0, &err);
  show("queue null context", err);
  show("kernel info bad", clGetKernelInfo(k, 0x7777, 8, dummy, nullptr));
  show("release null kernel", clReleaseKernel(nullptr));
  clReleaseEvent(e);
  clReleaseEvent(user);
  clReleaseCommandQueue(plain);
  release({m}, {k}, {p, bp});
  return 0;
}

// Pass-through overhead: many small enqueues of a tiny kernel; the time goes
// to stderr (not compared), the result to stdout.
int bench(Cl& cl) {
  const int n = 256, reps = getenv("RT_APP_REPS") ? atoi(getenv("RT_APP_REPS")) : 2000;
  cl_program p = cl.build(kScale);
  cl_kernel k = cl.kernel(p, "scale");
  std::vector<int> v(n, 1);
  cl_mem m = cl.buffer(CL_MEM_COPY_HOST_PTR, n * 4, v.data());
  int f = 1, add = 1;
  CHECK(clSetKernelArg(k, 1, sizeof f, &f));
  CHECK(clSetKernelArg(k, 2, sizeof add, &add));
  size_t global = n, local = 64;
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) {
    CHECK(clEnqueueWriteBuffer(cl.q, m, CL_FALSE, 0, 64, v.data(), 0, nullptr, nullptr));
    CHECK(clSetKernelArg(k, 0, sizeof m, &m));
    CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, n * 4, v.data(), 0, nullptr, nullptr));
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fprintf(stderr, "bench_seconds %.6f\n", s);
  print("v", v);
  release({m}, {k}, {p});
  return 0;
}

// Entry points of the features libsplit ties to one device (images,
// samplers, pipes, SVM): the codes they return and what the device
// advertises (the test compares them with the native run).
int unsupported(Cl& cl) {
  cl_int err = 0;
  cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc = {};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 16;
  desc.image_height = 16;
  cl_mem image = clCreateImage(cl.ctx, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err);
  printf("clCreateImage = %d null=%d\n", err, image == nullptr);
  if (image) {
    // Misuse of image commands: the codes the native runtime gives.
    unsigned char px[16 * 16 * 4] = {};
    size_t origin[3] = {0, 0, 0}, deep[3] = {0, 0, 1}, region[3] = {16, 16, 1}, wide[3] = {17, 1, 1};
    printf("read image origin z=1: %d\n",
           clEnqueueReadImage(cl.q, image, CL_TRUE, deep, region, 0, 0, px, 0, nullptr, nullptr));
    printf("read image too wide: %d\n",
           clEnqueueReadImage(cl.q, image, CL_TRUE, origin, wide, 0, 0, px, 0, nullptr, nullptr));
    printf("read image slice pitch on 2D: %d\n",
           clEnqueueReadImage(cl.q, image, CL_TRUE, origin, region, 0, 64 * 16, px, 0, nullptr, nullptr));
    printf("read buffer from image: %d\n", clEnqueueReadBuffer(cl.q, image, CL_TRUE, 0, 4, px, 0, nullptr, nullptr));
    size_t pitch = 0;
    printf("image info: %d\n", clGetImageInfo(image, CL_IMAGE_ROW_PITCH, sizeof pitch, &pitch, nullptr));
    cl_image_format other = {CL_RGBA, CL_FLOAT};
    cl_mem float_image = clCreateImage(cl.ctx, CL_MEM_READ_WRITE, &other, &desc, nullptr, &err);
    printf("copy image format mismatch: %d\n",
           clEnqueueCopyImage(cl.q, image, float_image, origin, origin, region, 0, nullptr, nullptr));
    printf("map image without row pitch: ");
    clEnqueueMapImage(cl.q, image, CL_TRUE, CL_MAP_READ, origin, region, nullptr, nullptr, 0, nullptr, nullptr, &err);
    printf("%d\n", err);
    if (float_image) clReleaseMemObject(float_image);
    clReleaseMemObject(image);
  }
  {
    // Kernel arguments of image and sampler type: the native checks.
    cl_program p = cl.build(
        "__kernel void k(__read_only image2d_t im, __global float* b, sampler_t s) {\n"
        "  b[0] = read_imagef(im, s, (int2)(0, 0)).x;\n"
        "}\n");
    cl_kernel k = cl.kernel(p, "k");
    cl_mem none = nullptr;
    printf("image arg: null value %d, null image %d, short %d\n", clSetKernelArg(k, 0, sizeof(cl_mem), nullptr),
           clSetKernelArg(k, 0, sizeof(cl_mem), &none), clSetKernelArg(k, 0, 4, &none));
    printf("sampler arg: null value %d\n", clSetKernelArg(k, 2, sizeof(cl_sampler), nullptr));
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
  cl_image_format bad_format = {CL_RGBA, CL_UNORM_SHORT_565};
  cl_mem bad = clCreateImage(cl.ctx, CL_MEM_READ_WRITE, &bad_format, &desc, nullptr, &err);
  printf("clCreateImage bad format = %d null=%d\n", err, bad == nullptr);
  desc.image_width = 0;
  bad = clCreateImage(cl.ctx, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err);
  printf("clCreateImage zero width = %d null=%d\n", err, bad == nullptr);
  cl_mem plain = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE, 64, nullptr, &err);
  size_t pitch = 0;
  printf("image info of a buffer: %d\n", clGetImageInfo(plain, CL_IMAGE_ROW_PITCH, sizeof pitch, &pitch, nullptr));
  clReleaseMemObject(plain);
  void* svm = clSVMAlloc(cl.ctx, CL_MEM_READ_WRITE, 1024, 0);
  printf("clSVMAlloc null=%d\n", svm == nullptr);
  if (svm) clSVMFree(cl.ctx, svm);
  cl_sampler sampler = clCreateSampler(cl.ctx, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST, &err);
  printf("clCreateSampler = %d null=%d\n", err, sampler == nullptr);
  if (sampler) clReleaseSampler(sampler);
  cl_mem pipe = clCreatePipe(cl.ctx, CL_MEM_READ_WRITE, 4, 16, nullptr, &err);
  printf("clCreatePipe = %d null=%d\n", err, pipe == nullptr);
  if (pipe) clReleaseMemObject(pipe);
  cl_uint formats = 0;
  cl_int formats_err =
      clGetSupportedImageFormats(cl.ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, nullptr, &formats);
  printf("clGetSupportedImageFormats = %d formats=%u\n", formats_err, formats);
  // What the device advertises (the shim: as the device itself).
  cl_bool images = CL_TRUE;
  cl_device_svm_capabilities svm_caps = 0;
  cl_device_exec_capabilities exec = 0;
  cl_uint read_images = 0;
  clGetDeviceInfo(cl.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  clGetDeviceInfo(cl.device, CL_DEVICE_SVM_CAPABILITIES, sizeof svm_caps, &svm_caps, nullptr);
  clGetDeviceInfo(cl.device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof exec, &exec, nullptr);
  clGetDeviceInfo(cl.device, CL_DEVICE_MAX_READ_IMAGE_ARGS, sizeof read_images, &read_images, nullptr);
  size_t n = 0;
  clGetDeviceInfo(cl.device, CL_DEVICE_EXTENSIONS, 0, nullptr, &n);
  std::string extensions(n, '\0');
  clGetDeviceInfo(cl.device, CL_DEVICE_EXTENSIONS, n, extensions.data(), nullptr);
  clGetDeviceInfo(cl.device, CL_DEVICE_OPENCL_C_FEATURES, 0, nullptr, &n);
  std::vector<cl_name_version> features(n / sizeof(cl_name_version));
  clGetDeviceInfo(cl.device, CL_DEVICE_OPENCL_C_FEATURES, n, features.data(), nullptr);
  bool image_feature = extensions.find("image") != std::string::npos;
  for (auto& f : features) image_feature |= std::string(f.name).find("image") != std::string::npos;
  printf("advertised: images=%d read_image_args=%u svm=%d native_kernels=%d image_features=%d\n",
         images, read_images, svm_caps != 0, (exec & CL_EXEC_NATIVE_KERNEL) != 0, image_feature);
  cl_mem buffer = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE, 64, nullptr, &err);
  cl_uint packet = 0;
  printf("clGetPipeInfo(buffer) = %d\n", clGetPipeInfo(buffer, CL_PIPE_PACKET_SIZE, sizeof packet, &packet, nullptr));
  clReleaseMemObject(buffer);
  void* fn = clGetExtensionFunctionAddressForPlatform(cl.platform, "clCreateBuffer");
  void* none = clGetExtensionFunctionAddressForPlatform(cl.platform, "clNoSuchFunctionKHR");
  printf("extension lookup: known=%d unknown_null=%d\n", fn != nullptr, none == nullptr);
  // The loader's own query (clinfo prints the loader's name with it): the
  // loader answers natively; a platform does not.
  printf("ICD loader info query: loader %s, platform %s\n",
         clGetExtensionFunctionAddress("clGetICDLoaderInfoOCLICD") ? "found" : "missing",
         clGetExtensionFunctionAddressForPlatform(cl.platform, "clGetICDLoaderInfoOCLICD") ? "found" : "missing");
  return 0;
}

// A program whose executable exists for one device of a two-device context
// (created from that device's binary): a launch on the other device's queue
// fails at enqueue (CL_INVALID_PROGRAM_EXECUTABLE), one on the first runs.
// Images shared by two queues on two devices of one context: each image
// is written on one device and read on the other (the shim moves it whole
// between its devices), mapped, filled, copied, read.
// misuse: also the codes of image arguments set wrongly (printed, so not
// in the fault-injection scenarios, whose output must not change).
int images2q(Cl& cl, bool misuse = false) {
  cl_device_id devices[2];
  cl_uint n = 0;
  CHECK(clGetDeviceIDs(cl.platform, CL_DEVICE_TYPE_ALL, 2, devices, &n));
  if (n < 2) {
    printf("one device\n");
    return 0;
  }
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 2, devices, nullptr, nullptr, &err);
  CHECK(err);
  cl_command_queue q0 = clCreateCommandQueue(ctx, devices[0], 0, &err);
  CHECK(err);
  cl_command_queue q1 = clCreateCommandQueue(ctx, devices[1], 0, &err);
  CHECK(err);
  const char* src =
      "__kernel void paint(__write_only image2d_t img, uint k) {\n"
      "  int x = get_global_id(0), y = get_global_id(1);\n"
      "  write_imageui(img, (int2)(x, y), (uint4)(x * k, y, k, 1));\n"
      "}\n"
      "__kernel void shift(__read_only image2d_t in, __write_only image2d_t out, __global uint* sum) {\n"
      "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
      "  int x = get_global_id(0), y = get_global_id(1);\n"
      "  uint4 v = read_imageui(in, s, (int2)(x + 1, y));\n"
      "  write_imageui(out, (int2)(x, y), v + (uint4)(100));\n"
      "  sum[y * get_global_size(0) + x] = v.x + v.y * 1000;\n"
      "}\n";
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  CHECK(err);
  CHECK(clBuildProgram(p, 2, devices, "", nullptr, nullptr));
  cl_kernel paint = clCreateKernel(p, "paint", &err);
  CHECK(err);
  cl_kernel shift = clCreateKernel(p, "shift", &err);
  CHECK(err);
  const size_t W = 16, H = 8;
  cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT32};
  cl_image_desc desc = {};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = W;
  desc.image_height = H;
  cl_mem a = clCreateImage(ctx, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err);
  CHECK(err);
  cl_mem b = clCreateImage(ctx, CL_MEM_READ_WRITE, &format, &desc, nullptr, &err);
  CHECK(err);
  cl_mem sum = clCreateBuffer(ctx, CL_MEM_READ_WRITE, W * H * 4, nullptr, &err);
  CHECK(err);
  size_t global[2] = {W, H}, origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
  cl_uint k = 3;
  CHECK(clSetKernelArg(paint, 0, sizeof a, &a));
  CHECK(clSetKernelArg(paint, 1, sizeof k, &k));
  CHECK(clEnqueueNDRangeKernel(q0, paint, 2, nullptr, global, nullptr, 0, nullptr, nullptr));
  CHECK(clFinish(q0));
  CHECK(clSetKernelArg(shift, 0, sizeof a, &a));
  CHECK(clSetKernelArg(shift, 1, sizeof b, &b));
  CHECK(clSetKernelArg(shift, 2, sizeof sum, &sum));
  CHECK(clEnqueueNDRangeKernel(q1, shift, 2, nullptr, global, nullptr, 0, nullptr, nullptr));
  CHECK(clFinish(q1));
  size_t row = 0;
  auto* mapped = static_cast<cl_uint*>(clEnqueueMapImage(q0, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin,
                                                         region, &row, nullptr, 0, nullptr, nullptr, &err));
  CHECK(err);
  std::vector<cl_uint> px(W * H * 4);
  for (size_t y = 0; y < H; ++y) {
    std::memcpy(&px[y * W * 4], reinterpret_cast<char*>(mapped) + y * row, W * 16);
    reinterpret_cast<cl_uint*>(reinterpret_cast<char*>(mapped) + y * row)[0] = 7777;
  }
  CHECK(clEnqueueUnmapMemObject(q0, b, mapped, 0, nullptr, nullptr));
  CHECK(clFinish(q0));
  print("b mapped", px);
  cl_uint color[4] = {9, 8, 7, 6};
  size_t fo[3] = {2, 2, 0}, fr[3] = {5, 3, 1};
  CHECK(clEnqueueFillImage(q1, a, color, fo, fr, 0, nullptr, nullptr));
  CHECK(clFinish(q1));
  CHECK(clEnqueueReadImage(q0, a, CL_TRUE, origin, region, 0, 0, px.data(), 0, nullptr, nullptr));
  print("a filled", px);
  CHECK(clEnqueueCopyImage(q0, b, a, origin, origin, fr, 0, nullptr, nullptr));
  CHECK(clFinish(q0));
  CHECK(clEnqueueReadImage(q1, a, CL_TRUE, origin, region, 0, 0, px.data(), 0, nullptr, nullptr));
  print("a copied", px);
  CHECK(clEnqueueNDRangeKernel(q0, shift, 2, nullptr, global, nullptr, 0, nullptr, nullptr));
  CHECK(clFinish(q0));
  std::vector<cl_uint> sums(W * H);
  CHECK(clEnqueueReadBuffer(q1, sum, CL_TRUE, 0, W * H * 4, sums.data(), 0, nullptr, nullptr));
  print("sum", sums);
  CHECK(clEnqueueReadImage(q1, b, CL_TRUE, origin, region, 0, 0, px.data(), 0, nullptr, nullptr));
  print("b", px);
  // Image arguments set with the wrong kind of object or size: the same
  // codes as natively (PoCL 3.1 takes either kind; NVIDIA's driver rejects a
  // null image, so the shim does not check an image by passing null).
  if (misuse) {
    printf("buffer as image arg: %d\n", clSetKernelArg(shift, 0, sizeof sum, &sum));
    printf("image as buffer arg: %d\n", clSetKernelArg(shift, 2, sizeof a, &a));
    printf("image arg of wrong size: %d\n", clSetKernelArg(shift, 0, 4, &a));
    printf("image arg set again: %d\n", clSetKernelArg(shift, 0, sizeof b, &b));
  }
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(sum);
  clReleaseKernel(paint);
  clReleaseKernel(shift);
  clReleaseProgram(p);
  clReleaseCommandQueue(q0);
  clReleaseCommandQueue(q1);
  clReleaseContext(ctx);
  return 0;
}

int noexec(Cl& cl) {
  cl_device_id devices[2];
  cl_uint n = 0;
  CHECK(clGetDeviceIDs(cl.platform, CL_DEVICE_TYPE_ALL, 2, devices, &n));
  if (n < 2) {
    printf("one device\n");
    return 0;
  }
  cl_int err;
  cl_context ctx = clCreateContext(nullptr, 2, devices, nullptr, nullptr, &err);
  CHECK(err);
  const char* src = "__kernel void put(__global int* out) { out[get_global_id(0)] = 40 + (int)get_global_id(0); }";
  cl_program from_source = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  CHECK(err);
  CHECK(clBuildProgram(from_source, 1, &devices[0], "", nullptr, nullptr));
  size_t size = 0;
  CHECK(clGetProgramInfo(from_source, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr));
  std::vector<unsigned char> binary(size);
  unsigned char* data = binary.data();
  CHECK(clGetProgramInfo(from_source, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr));
  const unsigned char* cdata = data;
  cl_program p = clCreateProgramWithBinary(ctx, 1, &devices[0], &size, &cdata, nullptr, &err);
  CHECK(err);
  CHECK(clBuildProgram(p, 1, &devices[0], "", nullptr, nullptr));
  cl_kernel k = clCreateKernel(p, "put", &err);
  CHECK(err);
  int out[64] = {0};
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof out, out, &err);
  CHECK(err);
  CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t global = 64, local = 8;
  for (int d = 1; d >= 0; --d) {
    cl_command_queue q = clCreateCommandQueue(ctx, devices[d], 0, &err);
    CHECK(err);
    printf("launch on device %d = %d\n", d, clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof out, out, 0, nullptr, nullptr));
    printf("out[0]=%d out[63]=%d\n", out[0], out[63]);
    clReleaseCommandQueue(q);
  }
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseProgram(from_source);
  clReleaseContext(ctx);
  return 0;
}

}  // namespace

// A launch with no local size: the work-group size is the driver's choice.
// Run whole on the app's device (as before the program is partition-ready),
// the shim must leave that choice to the driver as the app did.
const char* kLocalSize = R"(
__kernel void local_size(__global uint* out) {
  out[get_global_id(0)] = (uint)get_local_size(0);
}
)";

int localsize(Cl& cl) {
  const unsigned n = 1 << 16;
  std::vector<cl_uint> out(n);
  cl_program p = cl.build(kLocalSize);
  cl_kernel k = cl.kernel(p, "local_size");
  cl_mem d = cl.buffer(CL_MEM_WRITE_ONLY, n * 4);
  CHECK(clSetKernelArg(k, 0, sizeof d, &d));
  size_t global = n;
  CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(cl.q, d, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  printf("local size of item 0: %u, of the last item: %u\n", out[0], out[n - 1]);
  clReleaseMemObject(d);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

// Work-groups of 256 items, the app's fixed choice (within its device's
// limit), launched a few times.
int biggroups(Cl& cl) {
  const unsigned n = 1 << 14;
  std::vector<int> out(n, 1);
  cl_program p = cl.build(kScale);
  cl_mem m = cl.buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, out.data());
  cl_kernel k = scale_kernel(cl, p, m, 2, 3);
  size_t global = n, local = 256;
  for (int i = 0; i < 4; ++i)
    CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(cl.q, m, CL_TRUE, 0, n * 4, out.data(), 0, nullptr, nullptr));
  print("out", out);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

// Resident memory of this process, in KB.
long resident_kb() {
  long pages = 0, resident = 0;
  if (FILE* f = fopen("/proc/self/statm", "r")) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

// One "Name:   N kB" line of /proc/self/status (VmRSS: resident now, VmHWM:
// its peak so far), in KB; -1 if absent.
long status_kb(const char* name) {
  long kb = -1;
  if (FILE* f = fopen("/proc/self/status", "r")) {
    char line[256];
    const size_t len = strlen(name);
    while (fgets(line, sizeof line, f))
      if (strncmp(line, name, len) == 0 && line[len] == ':') {
        kb = atol(line + len + 1);
        break;
      }
    fclose(f);
  }
  return kb;
}

// A long iterative run: a stencil step (halos, owner computes), a racy
// store to shared elements (a merge) and an event kept and released, every
// iteration: two launches an iteration, `rt_app soak LAUNCHES` (default:
// RT_APP_ITERS iterations, else 2000). Host memory growth from the 10th
// percent of the run to its end goes to stderr, as "resident growth KB"
// (statm) and as the VmRSS and VmHWM lines of /proc/self/status at both
// points (stdout stays comparable with the native run).
int soak(Cl& cl, long launches) {
  const int n = 4096;
  const long iters = launches > 0                ? launches / 2
                     : getenv("RT_APP_ITERS")    ? atol(getenv("RT_APP_ITERS"))
                                                 : 2000;
  std::vector<float> a(n);
  for (int i = 0; i < n; ++i) a[i] = (i % 17) * 1.0f;
  cl_program p = cl.build(kStencil);
  cl_kernel k = cl.kernel(p, "smooth");
  cl_program rp = cl.build(kRacy);
  cl_kernel rk = cl.kernel(rp, "racy");
  cl_mem x = cl.buffer(CL_MEM_COPY_HOST_PTR, n * 4, a.data());
  cl_mem y = cl.buffer(CL_MEM_READ_WRITE, n * 4);
  cl_mem f = cl.buffer(CL_MEM_READ_WRITE, 8 * 4), d = cl.buffer(CL_MEM_READ_WRITE, 8 * 8),
         c = cl.buffer(CL_MEM_READ_WRITE, 64);
  const unsigned groups = 64;
  CHECK(clSetKernelArg(k, 2, sizeof n, &n));
  CHECK(clSetKernelArg(rk, 0, sizeof f, &f));
  CHECK(clSetKernelArg(rk, 1, sizeof d, &d));
  CHECK(clSetKernelArg(rk, 2, sizeof c, &c));
  CHECK(clSetKernelArg(rk, 3, sizeof groups, &groups));
  size_t global = n, local = 32, rglobal = groups * 16, rlocal = 16;
  long start_kb = 0, start_rss_kb = 0, start_hwm_kb = 0;
  for (long it = 0; it < iters; ++it) {
    if (it == iters / 10) {
      // Sampled once the queue is drained: what is resident then is what
      // the run keeps, not commands in flight.
      CHECK(clFinish(cl.q));
      start_kb = resident_kb();
      start_rss_kb = status_kb("VmRSS");
      start_hwm_kb = status_kb("VmHWM");
    }
    CHECK(clSetKernelArg(k, 0, sizeof x, &x));
    CHECK(clSetKernelArg(k, 1, sizeof y, &y));
    cl_event e = nullptr;
    CHECK(clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, it % 3 ? nullptr : &e));
    CHECK(clEnqueueNDRangeKernel(cl.q, rk, 1, nullptr, &rglobal, &rlocal, 0, nullptr, nullptr));
    if (e) {
      CHECK(clWaitForEvents(1, &e));
      clReleaseEvent(e);
    }
    std::swap(x, y);
    if (it % 100 == 0) CHECK(clFinish(cl.q));
  }
  CHECK(clEnqueueReadBuffer(cl.q, x, CL_TRUE, 0, n * 4, a.data(), 0, nullptr, nullptr));
  CHECK(clFinish(cl.q));
  const long end_rss_kb = status_kb("VmRSS"), end_hwm_kb = status_kb("VmHWM");
  fprintf(stderr, "resident growth KB %ld\n", resident_kb() - start_kb);
  fprintf(stderr, "launches %ld\n", 2 * iters);
  fprintf(stderr, "after warm-up VmRSS KB %ld VmHWM KB %ld\n", start_rss_kb, start_hwm_kb);
  fprintf(stderr, "at the end VmRSS KB %ld VmHWM KB %ld\n", end_rss_kb, end_hwm_kb);
  fprintf(stderr, "VmRSS growth KB %ld\n", end_rss_kb - start_rss_kb);
  fprintf(stderr, "VmHWM growth KB %ld\n", end_hwm_kb - start_hwm_kb);
  print("final", a);
  std::vector<unsigned char> chars(64);
  CHECK(clEnqueueReadBuffer(cl.q, c, CL_TRUE, 0, 64, chars.data(), 0, nullptr, nullptr));
  print("chars", chars);
  for (cl_mem m : {x, y, f, d, c}) clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseKernel(rk);
  clReleaseProgram(p);
  clReleaseProgram(rp);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: rt_app <scenario> [size]\n");
    return 2;
  }
  std::string s = argv[1];
  Cl cl;
  if (s == "vecadd") return vecadd(cl);
  if (s == "twod") return twod(cl);
  if (s == "iterative") return iterative(cl);
  if (s == "load") return load(cl);
  if (s == "columns") return columns(cl);
  if (s == "window") return window(cl);
  if (s == "mirror") return mirror(cl);
  if (s == "output") return output(cl);
  if (s == "order") return order(cl);
  if (s == "longname") return longname(cl);
  if (s == "rw") return rw(cl);
  if (s == "merge") return merge(cl);
  if (s == "trap") return trap(cl);
  if (s == "groups") return groups(cl);
  if (s == "events") return events(cl);
  if (s == "errors") return errors(cl);
  if (s == "noevent") return noevent(cl);
  if (s == "async") return async(cl);
  if (s == "racy") return racy(cl);
  if (s == "usehost") return usehost(cl);
  if (s == "biggroups") return biggroups(cl);
  if (s == "soak") return soak(cl, argc > 2 ? atol(argv[2]) : 0);
  if (s == "bench") return bench(cl);
  if (s == "unsupported") return unsupported(cl);
  if (s == "noexec") return noexec(cl);
  if (s == "images2q") return images2q(cl);
  if (s == "images2q_misuse") return images2q(cl, true);
  if (s == "localsize") return localsize(cl);
  fprintf(stderr, "unknown scenario %s\n", s.c_str());
  return 2;
}
