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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x)                                                       \
  do {                                                                 \
    cl_int e_ = (x);                                                   \
    if (e_ != CL_SUCCESS) {                                            \
      fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, e_); \
      exit(1);                                                         \
    }                                                                  \
  } while (0)

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static const char* kSource = "__kernel void one(__global int* p, int v) { p[get_global_id(0)] = v; }\n";

static cl_command_queue q;
static cl_kernel k;
static double* samples;
static unsigned reps = 2000;

static void report(const char* what) {
  qsort(samples, reps, sizeof(double), cmp_double);
  printf("%-44s median %7.2f us  p90 %7.2f us\n", what, samples[reps / 2], samples[reps * 9 / 10]);
}

static void ndrange(cl_event* e) {
  size_t one = 1;
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, e));
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
  cl_platform_id platforms[8];
  cl_uint np = 0;
  CHECK(clGetPlatformIDs(8, platforms, &np));
  cl_device_id device = NULL;
  for (cl_uint p = 0, seen = 0; p < np && !device; ++p) {
    cl_device_id ids[16];
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, ids, &nd) != CL_SUCCESS) continue;
    if (device_index < seen + nd) device = ids[device_index - seen];
    seen += nd;
  }
  if (!device) {
    fprintf(stderr, "no device %u\n", device_index);
    return 2;
  }
  char name[128] = "";
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  printf("%s, %u reps\n", name, reps);
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  q = clCreateCommandQueue(ctx, device, CL_QUEUE_PROFILING_ENABLE, &err);
  CHECK(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(prog, 1, &device, "", NULL, NULL));
  k = clCreateKernel(prog, "one", &err);
  CHECK(err);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
  CHECK(err);
  int v = 1;
  CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
  CHECK(clSetKernelArg(k, 1, sizeof v, &v));
  samples = malloc(reps * sizeof(double));
  ndrange(NULL);
  CHECK(clFinish(q));

  for (unsigned r = 0; r < reps; ++r) {
    double t = now_us();
    ndrange(NULL);
    samples[r] = now_us() - t;
    CHECK(clFinish(q));
  }
  report("clEnqueueNDRangeKernel, no event");
  for (unsigned r = 0; r < reps; ++r) {
    cl_event e;
    double t = now_us();
    ndrange(&e);
    samples[r] = now_us() - t;
    CHECK(clFinish(q));
    clReleaseEvent(e);
  }
  report("clEnqueueNDRangeKernel, with event");
  for (unsigned r = 0; r < reps; ++r) {
    ndrange(NULL);
    double t = now_us();
    CHECK(clFlush(q));
    samples[r] = now_us() - t;
    CHECK(clFinish(q));
  }
  report("clFlush after one kernel");
  for (unsigned r = 0; r < reps; ++r) {
    ndrange(NULL);
    double t = now_us();
    CHECK(clFinish(q));
    samples[r] = now_us() - t;
  }
  report("clFinish after one kernel (incl. its run)");
  for (unsigned r = 0; r < reps; ++r) {
    double t = now_us();
    CHECK(clFinish(q));
    samples[r] = now_us() - t;
  }
  report("clFinish of an idle queue");
  cl_event done;
  ndrange(&done);
  CHECK(clFinish(q));
  for (unsigned r = 0; r < reps; ++r) {
    cl_int status;
    double t = now_us();
    CHECK(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    samples[r] = now_us() - t;
  }
  report("clGetEventInfo(status), complete event");
  for (unsigned r = 0; r < reps; ++r) {
    cl_event e;
    cl_int status;
    ndrange(&e);
    double t = now_us();
    CHECK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    samples[r] = now_us() - t;
    CHECK(clFinish(q));
    clReleaseEvent(e);
  }
  report("clGetEventInfo(status), just enqueued");
  for (unsigned r = 0; r < reps; ++r) {
    cl_ulong s;
    double t = now_us();
    CHECK(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL));
    samples[r] = now_us() - t;
  }
  report("clGetEventProfilingInfo, complete event");
  for (unsigned r = 0; r < reps; ++r) {
    cl_event e;
    ndrange(&e);
    CHECK(clFinish(q));
    double t = now_us();
    clReleaseEvent(e);
    samples[r] = now_us() - t;
  }
  report("clReleaseEvent of a complete event");
  for (unsigned r = 0; r < reps; ++r) {
    cl_event e;
    ndrange(NULL);
    double t = now_us();
    CHECK(clEnqueueMarkerWithWaitList(q, 0, NULL, &e));
    samples[r] = now_us() - t;
    CHECK(clFinish(q));
    clReleaseEvent(e);
  }
  report("clEnqueueMarkerWithWaitList");
  for (unsigned r = 0; r < reps; ++r) {
    cl_event e;
    ndrange(&e);
    double t = now_us();
    CHECK(clSetEventCallback(e, CL_COMPLETE, nop_callback, NULL));
    samples[r] = now_us() - t;
    CHECK(clFinish(q));
    clReleaseEvent(e);
  }
  report("clSetEventCallback");
  for (unsigned r = 0; r < reps; ++r) {
    v = (int)r;
    double t = now_us();
    CHECK(clSetKernelArg(k, 1, sizeof v, &v));
    samples[r] = now_us() - t;
  }
  report("clSetKernelArg (int)");
  for (unsigned r = 0; r < reps; ++r) {
    double t = now_us();
    CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
    samples[r] = now_us() - t;
  }
  report("clSetKernelArg (cl_mem)");
  clReleaseEvent(done);
  free(samples);
  return 0;
}
