/* How long opening a device takes (context + profiling queue + a first
 * 4-byte write, which makes lazy drivers really set the device up), and
 * whether two openings on different devices overlap when two threads run
 * them at once (issue 23: may the shim open the other GPUs while the app
 * opens its own, without delaying it?).
 *
 *   context_open PLATFORM MODE DEV [DEV2]
 *     alone      DEV          one opening
 *     serial     DEV DEV2     DEV, then DEV2, one thread
 *     concurrent DEV DEV2     DEV in this thread, DEV2 in another, started together
 *     pair       DEV DEV2     one context holding both devices
 * Prints one line per opening: the device, start and end in ms since the
 * process's first OpenCL call returned, and the phases (the context, the
 * queues, the first writes): which of them the driver serialises. Run each
 * mode in a fresh process. */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include "bench.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static cl_platform_id platform;
static cl_device_id devices[16];
static double t0;

struct opening {
  cl_uint first, count;
  double start, context, queues, end;  /* the phases end at context, queues, end */
  cl_int err;
};

static void* open_devices(void* arg) {
  struct opening* o = arg;
  o->start = bench_now_ms() - t0;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
  cl_context ctx = clCreateContext(props, o->count, devices + o->first, NULL, NULL, &o->err);
  o->context = o->queues = bench_now_ms() - t0;
  cl_command_queue queues[16] = {0};
  for (cl_uint i = 0; ctx && o->err == CL_SUCCESS && i < o->count; ++i)
    queues[i] = clCreateCommandQueue(ctx, devices[o->first + i], CL_QUEUE_PROFILING_ENABLE, &o->err);
  o->queues = bench_now_ms() - t0;
  for (cl_uint i = 0; i < o->count && queues[i]; ++i) {
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4, NULL, &o->err);
    int v = 1;
    if (b) o->err = clEnqueueWriteBuffer(queues[i], b, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL);
    if (b) clReleaseMemObject(b);
    clReleaseCommandQueue(queues[i]);
  }
  o->end = bench_now_ms() - t0;
  return NULL; /* the context stays open, as the shim's would */
}

static void print(const char* what, const struct opening* o) {
  printf("%-10s devices %u..%u  start %8.1f ms  end %8.1f ms  took %8.1f ms (context %.1f, queues %.1f, "
         "first write %.1f)  err %d\n",
         what, o->first, o->first + o->count - 1, o->start, o->end, o->end - o->start, o->context - o->start,
         o->queues - o->context, o->end - o->queues, o->err);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s PLATFORM alone|serial|concurrent|pair DEV [DEV2]\n", argv[0]);
    return 2;
  }
  const double before = bench_now_ms();
  cl_platform_id platforms[8];
  cl_uint np = 0;
  clGetPlatformIDs(8, platforms, &np);
  const unsigned p = (unsigned)atoi(argv[1]);
  if (p >= np) {
    fprintf(stderr, "no platform %u (%u found)\n", p, np);
    return 2;
  }
  platform = platforms[p];
  cl_uint nd = 0;
  clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 16, devices, &nd);
  t0 = bench_now_ms();
  printf("platforms and devices found in %.1f ms (%u devices)\n", t0 - before, nd);
  const char* mode = argv[2];
  const cl_uint a = (cl_uint)atoi(argv[3]), b = argc > 4 ? (cl_uint)atoi(argv[4]) : a;
  if (a >= nd || b >= nd) {
    fprintf(stderr, "device out of range\n");
    return 2;
  }
  struct opening first = {a, 1, 0, 0, 0, 0, 0}, second = {b, 1, 0, 0, 0, 0, 0};
  if (!strcmp(mode, "alone")) {
    open_devices(&first);
    print("alone", &first);
  } else if (!strcmp(mode, "serial")) {
    open_devices(&first);
    open_devices(&second);
    print("serial", &first);
    print("serial", &second);
  } else if (!strcmp(mode, "concurrent")) {
    pthread_t t;
    pthread_create(&t, NULL, open_devices, &second);
    open_devices(&first);
    pthread_join(t, NULL);
    print("main", &first);
    print("thread", &second);
  } else if (!strcmp(mode, "pair")) {
    if (b != a + 1) {
      fprintf(stderr, "pair: DEV2 must be DEV+1\n");
      return 2;
    }
    first.count = 2;
    open_devices(&first);
    print("pair", &first);
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  return 0;
}
