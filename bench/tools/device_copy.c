/* What a copy of part of a buffer from one GPU to another costs on a
 * platform, by method (issue 23: why did clEnqueueCopyBuffer between two
 * GPUs of one NVIDIA context measure 5-350x slower than staging through
 * pinned host memory?).
 *
 *   device_copy [--platform P] [--mib TOTAL] [--piece-mib PIECE] [--repeat R]
 *
 * One context holds devices 0 and 1 of platform P. Buffer A is written by a
 * kernel on device 0 before every copy (so device 0 holds its newest bytes),
 * buffer B by a kernel on device 1 (the copy's destination lives there);
 * PIECE MiB at offset TOTAL/4 move from A to B. Methods:
 *   copy-on-dst   clEnqueueCopyBuffer(A -> B) on device 1's queue
 *   copy-on-src   the same on device 0's queue
 *   staged        clEnqueueReadBuffer from device 0 into pinned host memory,
 *                 clEnqueueWriteBuffer from it to device 1
 *   copy-sub      clEnqueueCopyBuffer from a sub-buffer of A holding just the
 *                 piece, on device 1's queue
 *   migrate-all   clEnqueueMigrateMemObjects(A) to device 1 (whole buffer)
 *   none          no move (the round's kernels alone)
 * Prints, per method, the median time of the move alone (the kernels that
 * dirty A and B are finished before the clock starts), its bandwidth for
 * the piece (for migrate-all: the whole buffer) and the median time of a
 * whole round (both kernels and the move: a driver that moved all of A to
 * device 1 for the copy moves it back for the next kernel on device 0). */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include "bench.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char* kSource =
    "__kernel void dirty(__global uint* p, uint v) { size_t i = get_global_id(0); p[i] = v + (uint)i; }\n";

static cl_context ctx;
static cl_command_queue q[2];
static cl_kernel dirty;
static cl_mem a, b, pinned, a_piece;
static void* pinned_ptr;
static size_t total, piece, offset;

static void dirty_buffer(int dev, cl_mem m, cl_uint v) {
  BENCH_CL(clSetKernelArg(dirty, 0, sizeof m, &m));
  BENCH_CL(clSetKernelArg(dirty, 1, sizeof v, &v));
  size_t n = total / 4;
  BENCH_CL(clEnqueueNDRangeKernel(q[dev], dirty, 1, NULL, &n, NULL, 0, NULL, NULL));
  BENCH_CL(clFinish(q[dev]));
}

static void move(const char* method) {
  if (!strcmp(method, "copy-on-dst") || !strcmp(method, "copy-on-src")) {
    cl_command_queue on = method[8] == 'd' ? q[1] : q[0];
    BENCH_CL(clEnqueueCopyBuffer(on, a, b, offset, offset, piece, 0, NULL, NULL));
    BENCH_CL(clFinish(on));
  } else if (!strcmp(method, "staged")) {
    cl_event read;
    BENCH_CL(clEnqueueReadBuffer(q[0], a, CL_FALSE, offset, piece, pinned_ptr, 0, NULL, &read));
    BENCH_CL(clEnqueueWriteBuffer(q[1], b, CL_FALSE, offset, piece, pinned_ptr, 1, &read, NULL));
    BENCH_CL(clFinish(q[1]));
    clReleaseEvent(read);
  } else if (!strcmp(method, "copy-sub")) {
    BENCH_CL(clEnqueueCopyBuffer(q[1], a_piece, b, 0, offset, piece, 0, NULL, NULL));
    BENCH_CL(clFinish(q[1]));
  } else if (!strcmp(method, "migrate-all")) {
    BENCH_CL(clEnqueueMigrateMemObjects(q[1], 1, &a, 0, 0, NULL, NULL));
    BENCH_CL(clFinish(q[1]));
  }
}

int main(int argc, char** argv) {
  unsigned platform_index = 0, repeat = 10;
  double total_mib = 64, piece_mib = 8;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--platform")) platform_index = (unsigned)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--mib")) total_mib = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--piece-mib")) piece_mib = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--repeat")) repeat = (unsigned)atoi(argv[i + 1]);
    else {
      fprintf(stderr, "usage: %s [--platform P] [--mib TOTAL] [--piece-mib PIECE] [--repeat R]\n", argv[0]);
      return 2;
    }
  }
  total = (size_t)(total_mib * 1048576) / 4 * 4;
  piece = (size_t)(piece_mib * 1048576) / 4 * 4;
  offset = total / 4 / 4 * 4;
  if (piece == 0 || offset + piece > total || repeat == 0) {
    fprintf(stderr, "the piece must fit in the buffer from TOTAL/4 on, repeat >= 1\n");
    return 2;
  }
  cl_platform_id platforms[8];
  cl_uint np = 0;
  BENCH_CL(clGetPlatformIDs(8, platforms, &np));
  if (platform_index >= np) {
    fprintf(stderr, "no platform %u\n", platform_index);
    return 2;
  }
  cl_device_id devs[2];
  cl_uint nd = 0;
  BENCH_CL(clGetDeviceIDs(platforms[platform_index], CL_DEVICE_TYPE_ALL, 2, devs, &nd));
  if (nd < 2) {
    fprintf(stderr, "platform %u has fewer than 2 devices\n", platform_index);
    return 2;
  }
  cl_int err;
  ctx = clCreateContext(NULL, 2, devs, NULL, NULL, &err);
  BENCH_CL(err);
  for (int d = 0; d < 2; ++d) {
    q[d] = clCreateCommandQueue(ctx, devs[d], 0, &err);
    BENCH_CL(err);
  }
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, NULL, &err);
  BENCH_CL(err);
  BENCH_CL(clBuildProgram(prog, 2, devs, "", NULL, NULL));
  dirty = clCreateKernel(prog, "dirty", &err);
  BENCH_CL(err);
  a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, total, NULL, &err);
  BENCH_CL(err);
  b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, total, NULL, &err);
  BENCH_CL(err);
  cl_buffer_region region = {offset, piece};
  a_piece = clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  BENCH_CL(err);
  pinned = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, piece, NULL, &err);
  BENCH_CL(err);
  pinned_ptr = clEnqueueMapBuffer(q[0], pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, piece, 0, NULL, NULL, &err);
  BENCH_CL(err);
  char name[128] = "";
  clGetDeviceInfo(devs[0], CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  printf("%s x2, buffers of %.1f MiB, piece %.1f MiB, %u repeats\n", name, total / 1048576.0, piece / 1048576.0,
         repeat);
  const char* methods[] = {"none", "staged", "copy-on-dst", "copy-on-src", "copy-sub", "migrate-all"};
  double* times = calloc(repeat, sizeof(double));
  double* rounds = calloc(repeat, sizeof(double));
  for (unsigned m = 0; m < sizeof methods / sizeof methods[0]; ++m) {
    for (unsigned r = 0; r <= repeat; ++r) {  // r == 0: untimed warm-up
      const double start = bench_now_ms();
      dirty_buffer(0, a, r);
      dirty_buffer(1, b, r);
      const double t = bench_now_ms();
      if (strcmp(methods[m], "none")) move(methods[m]);
      if (r) times[r - 1] = bench_now_ms() - t, rounds[r - 1] = bench_now_ms() - start;
    }
    // The copied bytes must be device 0's.
    cl_uint got = 0, want = (cl_uint)repeat + (cl_uint)(offset / 4);
    BENCH_CL(clEnqueueReadBuffer(q[1], b, CL_TRUE, offset, sizeof got, &got, 0, NULL, NULL));
    const int right = !strcmp(methods[m], "migrate-all") || !strcmp(methods[m], "none") || got == want;
    const double med = bench_quantile(times, repeat, 0.5), round = bench_quantile(rounds, repeat, 0.5);
    const double bytes = !strcmp(methods[m], "migrate-all") ? (double)total : (double)piece;
    printf("%-12s move: median %8.3f ms  min %8.3f  max %8.3f  %8.2f GB/s   round: median %8.3f ms%s\n",
           methods[m], med, times[0], times[repeat - 1], bytes / med / 1e6, round,
           right ? "" : "  WRONG BYTES");
  }
  free(times);
  free(rounds);
  return 0;
}
