/* scatter: data-dependent (indirect) writes and reads.
 * A region analysis cannot know which elements `out[idx[i]] = ...` writes,
 * so a multi-device runtime has to merge the devices' results. The index
 * maps are injective, so the result does not depend on the order.
 * Covers: a permutation scatter, a sparse injective scatter into a larger
 * pre-filled buffer (untouched elements must survive), a conditional write,
 * a gather with repeated indices, an iterative pointer-jumping loop (list
 * ranking, reads through data-dependent indices every round), wrap-around
 * reads and pair writes through helpers taking pointer offsets, and a
 * counting "histogram" where each work-item owns one bin. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void scatter(__global const int* in, __global const int* idx, __global int* out) {\n"
    "  int i = get_global_id(0);\n"
    "  out[idx[i]] = in[i] * 2 + i;\n"
    "}\n"
    "__kernel void scatter_if(__global const int* in, __global const int* idx,\n"
    "                         __global int* out) {\n"
    "  int i = get_global_id(0);\n"
    "  if (in[i] % 3 == 0) out[idx[i]] = -in[i];\n"
    "}\n"
    "__kernel void gather(__global const int* in, __global const int* idx, __global int* out) {\n"
    "  int i = get_global_id(0);\n"
    "  out[i] = in[idx[i]];\n"
    "}\n"
    "__kernel void jump(__global const int* next, __global const int* rank,\n"
    "                   __global int* next_out, __global int* rank_out) {\n"
    "  int i = get_global_id(0);\n"
    "  int n = next[i];\n"
    "  if (n >= 0) {\n"
    "    rank_out[i] = rank[i] + rank[n];\n"
    "    next_out[i] = next[n];\n"
    "  } else {\n"
    "    rank_out[i] = rank[i];\n"
    "    next_out[i] = n;\n"
    "  }\n"
    "}\n"
    "int window_sum(__global const int* start, int len) {\n"
    "  int s = 0;\n"
    "  for (int k = 0; k < len; ++k) s += start[k];\n"
    "  return s;\n"
    "}\n"
    "void store_pair(__global int* at, int a, int b) { at[0] = a; at[1] = b; }\n"
    "__kernel void rotate_window(__global const int* in, __global int* out, int n, int shift) {\n"
    "  int i = get_global_id(0);\n"
    "  int src = (i + shift) % n;\n"
    "  int len = min(4, n - src);\n"
    "  store_pair(out + 2 * i, in[src], window_sum(in + src, len));\n"
    "}\n"
    "__kernel void count_bins(__global const int* keys, int n, __global int* bins) {\n"
    "  int b = get_global_id(0), c = 0;\n"
    "  for (int i = 0; i < n; ++i) c += (keys[i] & 255) == b;\n"
    "  bins[b] = c;\n"
    "}\n";

enum { N = 4096, BIG = 3 * N, LIST = 2048 };

static void shuffle(cl_int* v, int n) {
  int i;
  for (i = n - 1; i > 0; --i) {
    int j = (int)(app_rand() % (unsigned)(i + 1));
    cl_int t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

static void set3(cl_kernel k, cl_mem a, cl_mem b, cl_mem c) {
  CHECK(clSetKernelArg(k, 0, sizeof a, &a));
  CHECK(clSetKernelArg(k, 1, sizeof b, &b));
  CHECK(clSetKernelArg(k, 2, sizeof c, &c));
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel scatter, scatter_if, gather, jump, count;
  static cl_int in[N], perm[N], sparse[BIG], rnd[N], out[BIG];
  static cl_int order[LIST], next[LIST], rank[LIST], bins[256];
  cl_int pattern = 0x5a5a5a5a, n = N;
  cl_mem bin, bperm, bsparse, brnd, bout, bbig, bnext[2], brank[2], bbins;
  size_t global = N, local = 64, glist = LIST, gbins = 256;
  int i, round;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, "");
  scatter = app_kernel(prog, "scatter");
  scatter_if = app_kernel(prog, "scatter_if");
  gather = app_kernel(prog, "gather");
  jump = app_kernel(prog, "jump");
  count = app_kernel(prog, "count_bins");

  for (i = 0; i < N; ++i) {
    in[i] = (cl_int)(app_rand() % 100000u);
    perm[i] = i;
    rnd[i] = (cl_int)(app_rand() % N);
  }
  shuffle(perm, N);
  /* Injective map into a 3x larger buffer: every third slot, shuffled. */
  for (i = 0; i < N; ++i) sparse[i] = 3 * i + (i % 3);
  shuffle(sparse, N);

  bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  CHECK_ERR(err);
  bperm = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof perm, perm, &err);
  CHECK_ERR(err);
  bsparse = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof(cl_int),
                           sparse, &err);
  CHECK_ERR(err);
  brnd = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof rnd, rnd, &err);
  CHECK_ERR(err);
  bout = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL, &err);
  CHECK_ERR(err);
  bbig = clCreateBuffer(ctx, CL_MEM_READ_WRITE, BIG * sizeof(cl_int), NULL, &err);
  CHECK_ERR(err);

  set3(scatter, bin, bperm, bout);
  CHECK(clEnqueueNDRangeKernel(q, scatter, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, N * sizeof(cl_int), out, 0, NULL, NULL));
  app_dump("permuted", out, N * sizeof(cl_int));

  CHECK(clEnqueueFillBuffer(q, bbig, &pattern, sizeof pattern, 0, BIG * sizeof(cl_int), 0, NULL,
                            NULL));
  set3(scatter, bin, bsparse, bbig);
  CHECK(clEnqueueNDRangeKernel(q, scatter, 1, NULL, &global, &local, 0, NULL, NULL));
  /* Then a conditional scatter on top, through the permutation (first N slots). */
  set3(scatter_if, bin, bperm, bbig);
  CHECK(clEnqueueNDRangeKernel(q, scatter_if, 1, NULL, &global, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bbig, CL_TRUE, 0, BIG * sizeof(cl_int), out, 0, NULL, NULL));
  app_dump("sparse_then_conditional", out, BIG * sizeof(cl_int));

  set3(gather, bin, brnd, bout);
  CHECK(clEnqueueNDRangeKernel(q, gather, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, N * sizeof(cl_int), out, 0, NULL, NULL));
  app_dump("gathered", out, N * sizeof(cl_int));

  /* List ranking by pointer jumping: a random linked list over LIST nodes. */
  for (i = 0; i < LIST; ++i) order[i] = i;
  shuffle(order, LIST);
  for (i = 0; i < LIST; ++i) {
    next[order[i]] = i + 1 < LIST ? order[i + 1] : -1;
    rank[order[i]] = i + 1 < LIST ? 1 : 0;
  }
  for (i = 0; i < 2; ++i) {
    bnext[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof next, NULL, &err);
    CHECK_ERR(err);
    brank[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof rank, NULL, &err);
    CHECK_ERR(err);
  }
  CHECK(clEnqueueWriteBuffer(q, bnext[0], CL_FALSE, 0, sizeof next, next, 0, NULL, NULL));
  CHECK(clEnqueueWriteBuffer(q, brank[0], CL_FALSE, 0, sizeof rank, rank, 0, NULL, NULL));
  for (round = 0; round < 11; ++round) {
    int s = round % 2, d = 1 - s;
    CHECK(clSetKernelArg(jump, 0, sizeof(cl_mem), &bnext[s]));
    CHECK(clSetKernelArg(jump, 1, sizeof(cl_mem), &brank[s]));
    CHECK(clSetKernelArg(jump, 2, sizeof(cl_mem), &bnext[d]));
    CHECK(clSetKernelArg(jump, 3, sizeof(cl_mem), &brank[d]));
    CHECK(clEnqueueNDRangeKernel(q, jump, 1, NULL, &glist, &local, 0, NULL, NULL));
  }
  CHECK(clEnqueueReadBuffer(q, brank[1], CL_TRUE, 0, sizeof rank, rank, 0, NULL, NULL));
  app_dump("list_rank", rank, sizeof rank);

  /* Wrap-around reads through helpers taking pointer offsets; each
   * work-item writes a pair of elements through a helper. */
  {
    cl_int shift = N / 3 + 5;
    cl_kernel rotate = app_kernel(prog, "rotate_window");
    CHECK(clSetKernelArg(rotate, 0, sizeof bin, &bin));
    CHECK(clSetKernelArg(rotate, 1, sizeof bbig, &bbig));
    CHECK(clSetKernelArg(rotate, 2, sizeof n, &n));
    CHECK(clSetKernelArg(rotate, 3, sizeof shift, &shift));
    CHECK(clEnqueueNDRangeKernel(q, rotate, 1, NULL, &global, &local, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, bbig, CL_TRUE, 0, BIG * sizeof(cl_int), out, 0, NULL, NULL));
    app_dump("rotated_windows", out, BIG * sizeof(cl_int));
    clReleaseKernel(rotate);
  }

  bbins = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof bins, NULL, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(count, 0, sizeof bin, &bin));
  CHECK(clSetKernelArg(count, 1, sizeof n, &n));
  CHECK(clSetKernelArg(count, 2, sizeof bbins, &bbins));
  CHECK(clEnqueueNDRangeKernel(q, count, 1, NULL, &gbins, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bbins, CL_TRUE, 0, sizeof bins, bins, 0, NULL, NULL));
  app_dump("bins", bins, sizeof bins);

  for (i = 0; i < 2; ++i) {
    clReleaseMemObject(bnext[i]);
    clReleaseMemObject(brank[i]);
  }
  clReleaseMemObject(bin);
  clReleaseMemObject(bperm);
  clReleaseMemObject(bsparse);
  clReleaseMemObject(brnd);
  clReleaseMemObject(bout);
  clReleaseMemObject(bbig);
  clReleaseMemObject(bbins);
  clReleaseKernel(scatter);
  clReleaseKernel(scatter_if);
  clReleaseKernel(gather);
  clReleaseKernel(jump);
  clReleaseKernel(count);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
