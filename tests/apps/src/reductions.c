/* reductions: kernels whose global atomics are reductions (every update of
 * the buffer is one commutative operation whose result is unused). libsplit
 * may split them: each device updates a private copy, combined afterwards.
 * Integer atomics only, so the native result does not depend on the order.
 * Covers: atomic_inc histogram (launched twice: the second adds on top),
 * atomic_add / atomic_sub into counters with non-zero start values, add and
 * sub mixed on one buffer, atomic_dec, atomic_min / atomic_max signed and
 * unsigned, atomic_or / atomic_and / atomic_xor, 64-bit atom_add / atom_min
 * / atom_max when the device has cl_khr_int64_{base,extended}_atomics, and a
 * stream compaction whose atomic_inc result is used (must run whole). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void histogram(__global const uint* in, __global uint* bins, uint nbins) {\n"
    "  atomic_inc(&bins[in[get_global_id(0)] % nbins]);\n"
    "}\n"
    "__kernel void sums(__global const int* in, __global int* acc, __global int* left) {\n"
    "  int v = in[get_global_id(0)];\n"
    "  atomic_add(&acc[get_global_id(0) % 4], v);\n"
    "  atomic_sub(&acc[4 + get_global_id(0) % 4], v);\n"
    "  atomic_sub(&left[get_global_id(0) % 2], v);\n"
    "}\n"
    "__kernel void count_down(__global const int* in, __global uint* c) {\n"
    "  if (in[get_global_id(0)] < 0) atomic_dec(&c[get_global_id(0) % 3]);\n"
    "}\n"
    "__kernel void extremes(__global const int* in, __global int* lo, __global int* hi,\n"
    "                       __global uint* ulo, __global uint* uhi) {\n"
    "  int v = in[get_global_id(0)];\n"
    "  uint k = get_global_id(0) % 8;\n"
    "  atomic_min(&lo[k], v);\n"
    "  atomic_max(&hi[k], v);\n"
    "  atomic_min(&ulo[k], (uint)v);\n"
    "  atomic_max(&uhi[k], (uint)v);\n"
    "}\n"
    "__kernel void bits(__global const uint* in, __global uint* o, __global uint* a,\n"
    "                   __global uint* x) {\n"
    "  uint v = in[get_global_id(0)];\n"
    "  uint k = get_global_id(0) % 16;\n"
    "  atomic_or(&o[k], 1u << (v % 32));\n"
    "  atomic_and(&a[k], ~(1u << (v % 31)));\n"
    "  atomic_xor(&x[k], v);\n"
    "}\n"
    "__kernel void compact(__global const int* in, __global int* out, __global int* count) {\n"
    "  int v = in[get_global_id(0)];\n"
    "  if (v > 5000) out[atomic_inc(count)] = v;\n"
    "}\n";

static const char* kSource64 =
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
    "__kernel void wide(__global const int* in, __global long* sum, __global long* lo,\n"
    "                   __global ulong* uhi) {\n"
    "  long v = (long)in[get_global_id(0)] * 1000003L;\n"
    "  atom_add(&sum[get_global_id(0) % 2], v);\n"
    "  atom_min(lo, v);\n"
    "  atom_max(uhi, (ulong)v);\n"
    "}\n";

enum { N = 1 << 14, BINS = 64 };

static cl_mem make(cl_context ctx, size_t bytes, void* init) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                            init, &err);
  CHECK_ERR(err);
  return m;
}

static void set_args(cl_kernel k, int n, cl_mem* mems) {
  int i;
  for (i = 0; i < n; ++i) CHECK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &mems[i]));
}

static void run(cl_command_queue q, cl_kernel k) {
  size_t global = N, local = 64;
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
}

static void dump(cl_command_queue q, const char* name, cl_mem m, void* host, size_t bytes) {
  CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
  app_dump(name, host, bytes);
}

static int has_extension(cl_device_id dev, const char* name) {
  char ext[8192];
  size_t len = 0;
  if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, &len) != CL_SUCCESS) return 0;
  ext[len < sizeof ext ? len : sizeof ext - 1] = 0;
  return strstr(ext, name) != NULL;
}

static int by_value(const void* a, const void* b) {
  int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel hist, sums, down, ext, bits, compact;
  static cl_uint in[N];
  static cl_int sin[N], compacted[N];
  cl_uint bins[BINS], nbins = BINS, zero = 0;
  cl_int acc[8], left[2] = {1000000, -7};
  cl_uint counters[3] = {5, 0, 100};
  cl_int lo[8], hi[8];
  cl_uint ulo[8], uhi[8], o[16], a[16], x[16];
  cl_int count = 0;
  cl_mem bin, bsin, bbins, bacc, bleft, bcount_down, blo, bhi, bulo, buhi, bo, ba, bx, bout, bcount;
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, "");
  hist = app_kernel(prog, "histogram");
  sums = app_kernel(prog, "sums");
  down = app_kernel(prog, "count_down");
  ext = app_kernel(prog, "extremes");
  bits = app_kernel(prog, "bits");
  compact = app_kernel(prog, "compact");

  for (i = 0; i < N; ++i) {
    in[i] = app_rand();
    sin[i] = (cl_int)(app_rand() % 20001u) - 10000;
  }
  for (i = 0; i < 8; ++i) {
    acc[i] = i * 1000 - 3000;
    lo[i] = i == 3 ? -20000 : 20000; /* one start value below every input */
    hi[i] = i == 5 ? 20000 : -20000;
    ulo[i] = 0xfffffff0u;
    uhi[i] = (cl_uint)i;
  }
  for (i = 0; i < 16; ++i) {
    o[i] = (cl_uint)i << 3;
    a[i] = 0xffffffffu ^ ((cl_uint)i << 7);
    x[i] = (cl_uint)i * 0x01010101u;
  }
  bin = make(ctx, sizeof in, in);
  bsin = make(ctx, sizeof sin, sin);
  bbins = make(ctx, sizeof bins, NULL);
  bacc = make(ctx, sizeof acc, acc);
  bleft = make(ctx, sizeof left, left);
  bcount_down = make(ctx, sizeof counters, counters);
  blo = make(ctx, sizeof lo, lo);
  bhi = make(ctx, sizeof hi, hi);
  bulo = make(ctx, sizeof ulo, ulo);
  buhi = make(ctx, sizeof uhi, uhi);
  bo = make(ctx, sizeof o, o);
  ba = make(ctx, sizeof a, a);
  bx = make(ctx, sizeof x, x);
  bout = make(ctx, sizeof compacted, NULL);
  bcount = make(ctx, sizeof count, &count);

  CHECK(clEnqueueFillBuffer(q, bbins, &zero, sizeof zero, 0, sizeof bins, 0, NULL, NULL));
  {
    cl_mem m[2] = {bin, bbins};
    set_args(hist, 2, m);
    CHECK(clSetKernelArg(hist, 2, sizeof nbins, &nbins));
  }
  run(q, hist);
  run(q, hist); /* on top of the first: every bin doubles */
  dump(q, "histogram", bbins, bins, sizeof bins);

  {
    cl_mem m[3] = {bsin, bacc, bleft};
    set_args(sums, 3, m);
  }
  run(q, sums);
  dump(q, "sums", bacc, acc, sizeof acc);
  dump(q, "left", bleft, left, sizeof left);

  {
    cl_mem m[2] = {bsin, bcount_down};
    set_args(down, 2, m);
  }
  run(q, down);
  dump(q, "count_down", bcount_down, counters, sizeof counters);

  {
    cl_mem m[5] = {bsin, blo, bhi, bulo, buhi};
    set_args(ext, 5, m);
  }
  run(q, ext);
  dump(q, "min", blo, lo, sizeof lo);
  dump(q, "max", bhi, hi, sizeof hi);
  dump(q, "umin", bulo, ulo, sizeof ulo);
  dump(q, "umax", buhi, uhi, sizeof uhi);

  {
    cl_mem m[4] = {bin, bo, ba, bx};
    set_args(bits, 4, m);
  }
  run(q, bits);
  dump(q, "or", bo, o, sizeof o);
  dump(q, "and", ba, a, sizeof a);
  dump(q, "xor", bx, x, sizeof x);

  /* The compaction's order depends on the schedule: sorted before the dump. */
  {
    cl_mem m[3] = {bsin, bout, bcount};
    set_args(compact, 3, m);
  }
  run(q, compact);
  CHECK(clEnqueueReadBuffer(q, bcount, CL_TRUE, 0, sizeof count, &count, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, (size_t)count * sizeof(cl_int), compacted, 0, NULL,
                            NULL));
  qsort(compacted, (size_t)count, sizeof(cl_int), by_value);
  app_print("compacted", count);
  app_dump("compact", compacted, (size_t)count * sizeof(cl_int));

  if (has_extension(dev, "cl_khr_int64_base_atomics") &&
      has_extension(dev, "cl_khr_int64_extended_atomics")) {
    cl_program prog64 = app_build(ctx, dev, kSource64, "");
    cl_kernel wide = clCreateKernel(prog64, "wide", &err);
    cl_long sum[2] = {-5, 1LL << 40}, lo64 = 0;
    cl_ulong uhi64 = 0;
    cl_mem bsum, blo64, buhi64;
    CHECK_ERR(err);
    bsum = make(ctx, sizeof sum, sum);
    blo64 = make(ctx, sizeof lo64, &lo64);
    buhi64 = make(ctx, sizeof uhi64, &uhi64);
    {
      cl_mem m[4] = {bsin, bsum, blo64, buhi64};
      set_args(wide, 4, m);
    }
    run(q, wide);
    dump(q, "sum64", bsum, sum, sizeof sum);
    dump(q, "min64", blo64, &lo64, sizeof lo64);
    dump(q, "umax64", buhi64, &uhi64, sizeof uhi64);
    clReleaseMemObject(bsum);
    clReleaseMemObject(blo64);
    clReleaseMemObject(buhi64);
    clReleaseKernel(wide);
    clReleaseProgram(prog64);
  } else {
    app_print("int64 atomics", 0);
  }

  clReleaseMemObject(bin);
  clReleaseMemObject(bsin);
  clReleaseMemObject(bbins);
  clReleaseMemObject(bacc);
  clReleaseMemObject(bleft);
  clReleaseMemObject(bcount_down);
  clReleaseMemObject(blo);
  clReleaseMemObject(bhi);
  clReleaseMemObject(bulo);
  clReleaseMemObject(buhi);
  clReleaseMemObject(bo);
  clReleaseMemObject(ba);
  clReleaseMemObject(bx);
  clReleaseMemObject(bout);
  clReleaseMemObject(bcount);
  clReleaseKernel(hist);
  clReleaseKernel(sums);
  clReleaseKernel(down);
  clReleaseKernel(ext);
  clReleaseKernel(bits);
  clReleaseKernel(compact);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
