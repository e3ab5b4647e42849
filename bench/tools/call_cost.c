/* Host time of the driver calls a split launch makes, one kind at a time
 * (issue 23: a split launch's host cost is mostly the drivers' calls; which
 * ones are dear on a platform decides what the shim should avoid).
 *
 *   call_cost [--device N] [--reps R]
 *
 * A profiling queue on device N (all platforms' devices numbered in order),
 * a one-group kernel. Prints the median host time of each call in us. */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include "bench.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char* kSource = "__kernel void one(__global int* p, int v) { p[get_global_id(0)] = v; }\n";

static cl_command_queue q;
static cl_kernel k;
static double* samples;
static unsigned reps = 2000;

static void report(const char* what) {
  const double p90 = bench_quantile(samples, reps, 0.9), median = bench_quantile(samples, reps, 0.5);
  printf("%-44s median %7.2f us  p90 %7.2f us\n", what, median, p90);
}

static void ndrange(cl_event* e) {
  size_t one = 1;
  BENCH_CL(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, e));
}

static void nop_callback(cl_event e, cl_int status, void* data) {
  (void)e, (void)status, (void)data;
}

int main(int argc, char** argv) {
  unsigned device_index = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--device")) device_index = (unsigned)atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--reps")) reps = (unsigned)atoi(argv[i + 1]);
  }
  if (reps < 10) reps = 10;
  cl_device_id device = bench_pick_device((int)device_index);
  char name[128] = "";
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  printf("%s, %u reps\n", name, reps);
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  BENCH_CL(err);
  q = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
  BENCH_CL(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, NULL, &err);
  BENCH_CL(err);
  BENCH_CL(clBuildProgram(prog, 1, &device, "", NULL, NULL));
  k = clCreateKernel(prog, "one", &err);
  BENCH_CL(err);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
  BENCH_CL(err);
  int v = 1;
  BENCH_CL(clSetKernelArg(k, 0, sizeof buf, &buf));
  BENCH_CL(clSetKernelArg(k, 1, sizeof v, &v));
  samples = malloc(reps * sizeof(double));
  ndrange(NULL);
  BENCH_CL(clFinish(q));

  for (unsigned r = 0; r < reps; ++r) {
    double t = (bench_now_ms() * 1e3);
    ndrange(NULL);
    samples[r] = (bench_now_ms() * 1e3) - t;
    BENCH_CL(clFinish(q));
  }
  report("clEnqueueNDRangeKernel, no event");
  for (unsigned r = 0; r < reps; ++r) {
    cl_event e;
    double t = (bench_now_ms() * 1e3);
    ndrange(&e);
    samples[r] = (bench_now_ms() * 1e3) - t;
    BENCH_CL(clFinish(q));
    clReleaseEvent(e);
  }
  report("clEnqueueNDRangeKernel, with event");
  for (unsigned r = 0; r < reps; ++r) {
    ndrange(NULL);
    double t = (bench_now_ms() * 1e3);
    BENCH_CL(clFlush(q));
    samples[r] = (bench_now_ms() * 1e3) - t;
    BENCH_CL(clFinish(q));
  }
  report("clFlush after one kernel");
  for (unsigned r = 0; r < reps; ++r) {
    ndrange(NULL);
    double t = (bench_now_ms() * 1e3);
    BENCH_CL(clFinish(q));
    samples[r] = (bench_now_ms() * 1e3) - t;
  }
  report("clFinish after one kernel (incl. its run)");
  for (unsigned r = 0; r < reps; ++r) {
    double t = (bench_now_ms() * 1e3);
    BENCH_CL(clFinish(q));
    samples[r] = (bench_now_ms() * 1e3) - t;
  }
  report("clFinish of an idle queue");
  cl_event done;
  ndrange(&done);
  BENCH_CL(clFinish(q));
  for (unsigned r = 0; r < reps; ++r) {
    cl_int status;
    double t = (bench_now_ms() * 1e3);
    BENCH_CL(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    samples[r] = (bench_now_ms() * 1e3) - t;
  }
  report("clGetEventInfo(status), complete event");
  for (unsigned r = 0; r < reps; ++r) {
    cl_event e;
    cl_int status;
    ndrange(&e);
    double t = (bench_now_ms() * 1e3);
    BENCH_CL(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    samples[r] = (bench_now_ms() * 1e3) - t;
    BENCH_CL(clFinish(q));
    clReleaseEvent(e);
  }
  report("clGetEventInfo(status), just enqueued");
  for (unsigned r = 0; r < reps; ++r) {
    cl_ulong s;
    double t = (bench_now_ms() * 1e3);
    BENCH_CL(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL));
    samples[r] = (bench_now_ms() * 1e3) - t;
  }
  report("clGetEventProfilingInfo, complete event");
  for (unsigned r = 0; r < reps; ++r) {
    cl_event e;
    ndrange(&e);
    BENCH_CL(clFinish(q));
    double t = (bench_now_ms() * 1e3);
    clReleaseEvent(e);
    samples[r] = (bench_now_ms() * 1e3) - t;
  }
  report("clReleaseEvent of a complete event");
  for (unsigned r = 0; r < reps; ++r) {
    cl_event e;
    ndrange(NULL);
    double t = (bench_now_ms() * 1e3);
    BENCH_CL(clEnqueueMarkerWithWaitList(q, 0, NULL, &e));
    samples[r] = (bench_now_ms() * 1e3) - t;
    BENCH_CL(clFinish(q));
    clReleaseEvent(e);
  }
  report("clEnqueueMarkerWithWaitList");
  for (unsigned r = 0; r < reps; ++r) {
    cl_event e;
    ndrange(&e);
    double t = (bench_now_ms() * 1e3);
    BENCH_CL(clSetEventCallback(e, CL_COMPLETE, nop_callback, NULL));
    samples[r] = (bench_now_ms() * 1e3) - t;
    BENCH_CL(clFinish(q));
    clReleaseEvent(e);
  }
  report("clSetEventCallback");
  for (unsigned r = 0; r < reps; ++r) {
    v = (int)r;
    double t = (bench_now_ms() * 1e3);
    BENCH_CL(clSetKernelArg(k, 1, sizeof v, &v));
    samples[r] = (bench_now_ms() * 1e3) - t;
  }
  report("clSetKernelArg (int)");
  for (unsigned r = 0; r < reps; ++r) {
    double t = (bench_now_ms() * 1e3);
    BENCH_CL(clSetKernelArg(k, 0, sizeof buf, &buf));
    samples[r] = (bench_now_ms() * 1e3) - t;
  }
  report("clSetKernelArg (cl_mem)");
  clReleaseEvent(done);
  free(samples);
  return 0;
}
