// A single-device OpenCL program whose kernels index buffers through other
// buffers (gathers, CSR sparse matrix-vector products, scatters). It knows
// nothing of libsplit: tests/runtime/indirect_test.cpp runs it with and
// without the shim and compares its stdout byte for byte.
// Usage: indirect_app <scenario>
#include <CL/cl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

#define CHECK(x)                                                        \
  do {                                                                  \
    cl_int e_ = (x);                                                    \
    if (e_ != CL_SUCCESS) {                                             \
      fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #x, e_); \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

struct Cl {
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue q;
  Cl() {
    CHECK(clGetPlatformIDs(1, &platform, nullptr));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr));
    cl_int err;
    ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    CHECK(err);
    q = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
    CHECK(err);
  }
  ~Cl() {
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
  }
  cl_kernel kernel(const char* src, const char* name) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
    CHECK(err);
    CHECK(clBuildProgram(p, 1, &device, "", nullptr, nullptr));
    cl_kernel k = clCreateKernel(p, name, &err);
    CHECK(err);
    clReleaseProgram(p);
    return k;
  }
  template <class T>
  cl_mem input(const std::vector<T>& v) {
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(T),
                              const_cast<T*>(v.data()), &err);
    CHECK(err);
    return m;
  }
  cl_mem output(size_t bytes, float fill) {
    std::vector<float> v(bytes / 4, fill);
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, v.data(), &err);
    CHECK(err);
    return m;
  }
  void run(cl_kernel k, size_t global, size_t local = 64) {
    CHECK(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  }
  std::vector<float> read(cl_mem m, size_t n) {
    std::vector<float> v(n);
    CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * 4, v.data(), 0, nullptr, nullptr));
    return v;
  }
};

template <class... A>
void args(cl_kernel k, const A&... a) {
  cl_uint i = 0;
  auto set = [&](const void* value, size_t size) { CHECK(clSetKernelArg(k, i++, size, value)); };
  (set(&a, sizeof(A)), ...);
}

void print(const char* label, const std::vector<float>& v) {
  uint64_t h = 1469598103934665603ull;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(v.data());
  for (size_t i = 0; i < v.size() * 4; ++i) h = (h ^ b[i]) * 1099511628211ull;
  printf("%s: n=%zu fnv=%016llx first=%a %a\n", label, v.size(), static_cast<unsigned long long>(h),
         double(v[0]), double(v[1]));
}

std::vector<float> values(size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(int((i * 2654435761u + seed) % 1000) - 500) / 8.0f;
  return v;
}

// Indices local to blocks of 64 (a shuffle inside each block): every slice
// of whole groups reads only its own part of src.
const char* kGather = R"(
__kernel void gather(__global const uint* idx, __global const float* src, __global float* dst) {
  size_t i = get_global_id(0);
  dst[i] = src[idx[i]] * 2.0f + 1.0f;
}
__kernel void gather_long(__global const long* idx, __global const float* src, __global float* dst, int n) {
  int i = get_global_id(0);
  if (i < n) dst[i] = src[idx[i] + 8];
}
__kernel void gather_guarded(__global const int* idx, __global const float* src, __global float* dst) {
  size_t i = get_global_id(0);
  int j = idx[i];
  dst[i] = j >= 0 ? src[j] : -1.0f;
})";

int gather(Cl& cl) {
  const unsigned n = 8192;
  std::vector<unsigned> idx(n);
  for (unsigned i = 0; i < n; ++i) idx[i] = (i & ~63u) + ((i * 37u) & 63u);
  cl_mem di = cl.input(idx), ds = cl.input(values(n, 7)), dd = cl.output(n * 4, 0.0f);
  cl_kernel k = cl.kernel(kGather, "gather");
  args(k, di, ds, dd);
  for (int it = 0; it < 3; ++it) cl.run(k, n);
  print("gather", cl.read(dd, n));
  return 0;
}

const char* kMakeIndex = R"(
__kernel void make_index(__global uint* idx) {
  uint i = get_global_id(0);
  idx[i] = (i & ~63u) + ((i * 37u) & 63u);
})";

// The indices are computed by a kernel: under the shim they are on the
// devices, and the gather's regions read back just the slices they need.
int gather_device_idx(Cl& cl) {
  const unsigned n = 8192;
  cl_int err;
  cl_mem di = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE, n * 4, nullptr, &err);
  CHECK(err);
  cl_mem ds = cl.input(values(n, 9)), dd = cl.output(n * 4, 0.0f);
  cl_kernel make = cl.kernel(kMakeIndex, "make_index");
  args(make, di);
  cl.run(make, n);
  cl_kernel k = cl.kernel(kGather, "gather");
  args(k, di, ds, dd);
  for (int it = 0; it < 2; ++it) cl.run(k, n);
  print("gather", cl.read(dd, n));
  return 0;
}

// 64-bit indices, an offset and a guard on the size (the global size is
// rounded up past n).
int gather64(Cl& cl) {
  const int n = 6000;
  std::vector<int64_t> idx(n);
  for (int i = 0; i < n; ++i) idx[i] = n - 1 - i;  // reversed: the last slice reads the front
  cl_mem di = cl.input(idx), ds = cl.input(values(n + 8, 3)), dd = cl.output(n * 4, 0.0f);
  cl_kernel k = cl.kernel(kGather, "gather_long");
  args(k, di, ds, dd, n);
  cl.run(k, 6016);
  print("gather64", cl.read(dd, n));
  return 0;
}

// A -1 sentinel guarded by data: out of range for src, so src moves whole.
int sentinel(Cl& cl) {
  const int n = 4096;
  std::vector<int> idx(n);
  for (int i = 0; i < n; ++i) idx[i] = i % 5 == 0 ? -1 : i;
  cl_mem di = cl.input(idx), ds = cl.input(values(n, 5)), dd = cl.output(n * 4, 0.0f);
  cl_kernel k = cl.kernel(kGather, "gather_guarded");
  args(k, di, ds, dd);
  cl.run(k, n);
  print("sentinel", cl.read(dd, n));
  return 0;
}

const char* kSpmv = R"(
__kernel void spmv(__global float* y, __global const int* row, __global const int* col,
                   __global const float* val, __global const float* x, int rows) {
  int i = get_global_id(0);
  if (i >= rows) return;
  float s = 0.0f;
  for (int k = row[i]; k < row[i + 1]; ++k) s += val[k] * x[col[k]];
  y[i] = s;
})";

// A banded CSR matrix (columns within 40 of the diagonal, 1 to 24 entries
// per row): a slice of rows reads its part of col/val and a band of x.
int csr(Cl& cl) {
  const int rows = 8192;
  std::vector<int> row(rows + 1), col;
  row[0] = 0;
  unsigned state = 99;
  for (int i = 0; i < rows; ++i) {
    int count = 1 + int((i * 7u) % 24u);
    for (int k = 0; k < count; ++k) {
      state = state * 1664525u + 1013904223u;
      int c = i + int(state % 81u) - 40;
      col.push_back(c < 0 ? 0 : c >= rows ? rows - 1 : c);
    }
    row[i + 1] = int(col.size());
  }
  std::vector<float> val = values(col.size(), 11);
  cl_mem dr = cl.input(row), dc = cl.input(col), dv = cl.input(val), dx = cl.input(values(rows, 13));
  cl_mem dy = cl.output(rows * 4, 0.0f);
  cl_kernel k = cl.kernel(kSpmv, "spmv");
  args(k, dy, dr, dc, dv, dx, rows);
  for (int it = 0; it < 4; ++it) cl.run(k, rows);
  print("y", cl.read(dy, rows));
  return 0;
}

// The matrix of bench/apps/spmv.c (small preset), same kernel: rows denser
// toward the end, columns in a band around the diagonal plus one in four
// anywhere (x then moves whole; col and val only by rows).
int spmv_bench(Cl& cl) {
  const int rows = 32768, max_nnz = 64;
  std::vector<int> row(rows + 1);
  row[0] = 0;
  for (int i = 0; i < rows; ++i) {
    double f = double(i) / rows;
    row[i + 1] = row[i] + 1 + int((max_nnz - 1) * f * f);
  }
  std::vector<int> col(row[rows]);
  unsigned state = 12345u;
  for (int i = 0; i < rows; ++i)
    for (int k = row[i]; k < row[i + 1]; ++k) {
      state = state * 1664525u + 1013904223u;
      int c = (k & 3) == 3 ? int(state % unsigned(rows)) : i + int(state % 2048u) - 1024;
      col[k] = c < 0 ? c + rows : c >= rows ? c - rows : c;
    }
  cl_mem dr = cl.input(row), dc = cl.input(col), dv = cl.input(values(col.size(), 171));
  cl_mem dx = cl.input(values(rows, 172)), dy = cl.output(rows * 4, 0.0f);
  cl_kernel k = cl.kernel(kSpmv, "spmv");
  args(k, dy, dr, dc, dv, dx, rows);
  for (int it = 0; it < 3; ++it) cl.run(k, rows);
  print("y", cl.read(dy, rows));
  return 0;
}

const char* kScatter = R"(
__kernel void scatter(__global const int* perm, __global const float* in, __global float* out) {
  int i = get_global_id(0);
  out[perm[i]] = in[i] * 3.0f;
})";

// perm local to blocks of 64 (written regions of slices disjoint: no merge)
// or spread over the whole output (overlapping hulls: merged); both must
// give the native bytes.
int scatter(Cl& cl, bool local_perm) {
  const int n = 8192;
  std::vector<int> perm(n);
  for (int i = 0; i < n; ++i) perm[i] = local_perm ? (i & ~63) + ((i * 29) & 63) : (i * 1237) % n;
  cl_mem dp = cl.input(perm), di = cl.input(values(n, 17)), dout = cl.output(n * 4, 5.0f);
  cl_kernel k = cl.kernel(kScatter, "scatter");
  args(k, dp, di, dout);
  cl.run(k, n);
  print("scattered", cl.read(dout, n));
  return 0;
}

const char* kCopyThrough = R"(
__kernel void copy_through(__global const int* idx, __global const int* src, __global int* dst) {
  int i = get_global_id(0);
  dst[i] = src[idx[i]];
})";

// The index buffer is one half of a buffer whose other half the launch
// writes (two sub-buffers of one parent): its contents cannot be trusted
// before the launch, so the shim falls back to whole buffers.
int aliased(Cl& cl) {
  const int n = 4096;
  std::vector<int> both(2 * n);
  for (int i = 0; i < n; ++i) both[i] = (i * 7) % n, both[n + i] = -i;
  cl_int err;
  cl_mem parent = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, both.size() * 4, both.data(), &err);
  CHECK(err);
  cl_buffer_region lo{0, size_t(n) * 4}, hi{size_t(n) * 4, size_t(n) * 4};
  cl_mem first = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &lo, &err);
  CHECK(err);
  cl_mem second = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &hi, &err);
  CHECK(err);
  std::vector<int> src(n);
  for (int i = 0; i < n; ++i) src[i] = (3 * i + 1) % n;  // indices again, in range
  cl_mem ds = cl.input(src);
  cl_kernel k = cl.kernel(kCopyThrough, "copy_through");
  args(k, first, ds, second);
  cl.run(k, n);
  args(k, second, ds, first);  // the half just written gives the indices now
  cl.run(k, n);
  std::vector<float> out = cl.read(parent, 2 * n);
  print("aliased", out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: indirect_app <scenario>\n");
    return 2;
  }
  std::string s = argv[1];
  Cl cl;
  if (s == "gather") return gather(cl);
  if (s == "gather64") return gather64(cl);
  if (s == "gather_device_idx") return gather_device_idx(cl);
  if (s == "sentinel") return sentinel(cl);
  if (s == "csr") return csr(cl);
  if (s == "spmv_bench") return spmv_bench(cl);
  if (s == "scatter_local") return scatter(cl, true);
  if (s == "scatter_spread") return scatter(cl, false);
  if (s == "aliased") return aliased(cl);
  fprintf(stderr, "unknown scenario %s\n", s.c_str());
  return 2;
}
