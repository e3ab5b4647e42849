/* What an open device costs at the end of the process (issue 23: every H100
 * context libsplit opens beyond the app's adds ~200 ms to the process's wall
 * time, in the driver's own teardown). Opens one context per device
 * 0..N-1 of PLATFORM (queue, a 1 MiB buffer written, a small kernel built
 * and run, as the shim's contexts have), then ends in one of three ways:
 *   keep      return from main: the driver tears the contexts down at exit
 *   release   clReleaseContext (and its objects) one after the other
 *   parallel  the same, each context from its own thread, all at once
 * Prints the opening and release times; the caller measures the process's
 * wall time (the teardown the driver does after main is not visible here).
 *
 *   context_exit PLATFORM N keep|release|parallel */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include "bench.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct opened {
  cl_context ctx;
  cl_command_queue queue;
  cl_mem buf;
  cl_program program;
  cl_kernel kernel;
};

static const char* source = "kernel void inc(global int* a) { a[get_global_id(0)] += 1; }";

static void* release(void* arg) {
  struct opened* o = arg;
  clReleaseKernel(o->kernel);
  clReleaseProgram(o->program);
  clReleaseMemObject(o->buf);
  clReleaseCommandQueue(o->queue);
  clReleaseContext(o->ctx);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s PLATFORM N keep|release|parallel\n", argv[0]);
    return 2;
  }
  cl_platform_id platforms[8];
  cl_uint np = 0;
  clGetPlatformIDs(8, platforms, &np);
  const unsigned p = (unsigned)atoi(argv[1]);
  cl_device_id devices[16];
  cl_uint nd = 0;
  if (p >= np || clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS) {
    fprintf(stderr, "no platform %u\n", p);
    return 2;
  }
  const unsigned n = (unsigned)atoi(argv[2]);
  const char* mode = argv[3];
  if (n < 1 || n > nd || (strcmp(mode, "keep") && strcmp(mode, "release") && strcmp(mode, "parallel"))) {
    fprintf(stderr, "N must be 1..%u and the mode keep, release or parallel\n", nd);
    return 2;
  }
  struct opened o[16];
  const double t0 = bench_now_ms();
  for (unsigned i = 0; i < n; ++i) {
    cl_int err = CL_SUCCESS;
    o[i].ctx = clCreateContext(NULL, 1, &devices[i], NULL, NULL, &err);
    o[i].queue = clCreateCommandQueue(o[i].ctx, devices[i], CL_QUEUE_PROFILING_ENABLE, &err);
    o[i].buf = clCreateBuffer(o[i].ctx, CL_MEM_READ_WRITE, 1 << 20, NULL, &err);
    static int zeros[1 << 18];
    clEnqueueWriteBuffer(o[i].queue, o[i].buf, CL_TRUE, 0, sizeof zeros, zeros, 0, NULL, NULL);
    o[i].program = clCreateProgramWithSource(o[i].ctx, 1, &source, NULL, &err);
    err |= clBuildProgram(o[i].program, 1, &devices[i], "", NULL, NULL);
    o[i].kernel = clCreateKernel(o[i].program, "inc", &err);
    clSetKernelArg(o[i].kernel, 0, sizeof(cl_mem), &o[i].buf);
    size_t global = 1 << 18;
    err |= clEnqueueNDRangeKernel(o[i].queue, o[i].kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    err |= clFinish(o[i].queue);
    if (err != CL_SUCCESS) {
      fprintf(stderr, "device %u: error %d\n", i, err);
      return 1;
    }
  }
  const double t1 = bench_now_ms();
  printf("opened %u contexts in %.1f ms\n", n, t1 - t0);
  if (!strcmp(mode, "release")) {
    for (unsigned i = 0; i < n; ++i) release(&o[i]);
  } else if (!strcmp(mode, "parallel")) {
    pthread_t threads[16];
    for (unsigned i = 0; i < n; ++i) pthread_create(&threads[i], NULL, release, &o[i]);
    for (unsigned i = 0; i < n; ++i) pthread_join(threads[i], NULL);
  }
  printf("%s: %.1f ms in main after the openings\n", mode, bench_now_ms() - t1);
  return 0;
}
