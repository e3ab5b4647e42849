/* Could the shim open the other GPUs while the process is still discovering
 * its platforms (issue 23)? Platform discovery takes 0.8-1.4 s in every
 * process on the 4-H100 machine, natively too, and each context costs
 * ~110 ms that the driver serialises. If one vendor's start-up (its
 * clIcdGetPlatformIDsKHR) and its context creations overlap the other
 * vendors' start-up, openings made then cost the app nothing.
 *
 *   early_open VENDOR_LIB K
 * The main thread does what an app does: clGetPlatformIDs through the ICD
 * loader, then a context and a first write on the first GPU (else the
 * first device). With K > 0 a thread started first loads VENDOR_LIB
 * itself, asks it for its platform (its own clIcdGetPlatformIDsKHR) and
 * creates one context on each of its devices 1..K, calling the vendor
 * through its dispatch table (the loader is not involved). Prints when each
 * step ended, in ms since main began. */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_icd.h>

#include "bench.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double t0;
static const char* vendor_lib;
static int k;
static double opened_at[16], vendor_platform_at, vendor_loaded_at;
static cl_int open_err[16];
static cl_platform_id vendor_platform;
/* A vendor's start-up is not safe against itself (PoCL 3.1 finds no device
 * when the loader and this thread start it at once): the app's
 * clGetPlatformIDs waits until the early thread has the vendor's platform,
 * as the shim's would. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;
static int vendor_started;

static void vendor_done(void) {
  pthread_mutex_lock(&lock);
  vendor_started = 1;
  pthread_cond_broadcast(&started);
  pthread_mutex_unlock(&lock);
}

typedef cl_int (*icd_get_platforms)(cl_uint, cl_platform_id*, cl_uint*);

static void* open_early(void* unused) {
  (void)unused;
  void* lib = dlopen(vendor_lib, RTLD_NOW | RTLD_LOCAL);
  vendor_loaded_at = bench_now_ms() - t0;
  if (!lib) {
    fprintf(stderr, "dlopen %s: %s\n", vendor_lib, dlerror());
    vendor_done();
    return NULL;
  }
  /* As the loader finds it: exported, or through the vendor's
   * clGetExtensionFunctionAddress (PoCL). */
  icd_get_platforms get = (icd_get_platforms)dlsym(lib, "clIcdGetPlatformIDsKHR");
  typedef void* (*get_address)(const char*);
  get_address address = (get_address)dlsym(lib, "clGetExtensionFunctionAddress");
  if (!get && address) get = (icd_get_platforms)address("clIcdGetPlatformIDsKHR");
  cl_platform_id p[4];
  cl_uint n = 0;
  if (!get || get(4, p, &n) != CL_SUCCESS || n == 0) {
    fprintf(stderr, "%s: no platform\n", vendor_lib);
    vendor_done();
    return NULL;
  }
  vendor_platform = p[0];
  const struct _cl_icd_dispatch* d = *(const struct _cl_icd_dispatch* const*)p[0];
  cl_device_id dev[16];
  cl_uint nd = 0;
  d->clGetDeviceIDs(p[0], CL_DEVICE_TYPE_ALL, 16, dev, &nd);
  vendor_platform_at = bench_now_ms() - t0;
  vendor_done();
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p[0], 0};
  for (int i = 1; i <= k && i < (int)nd; ++i) {
    d->clCreateContext(props, 1, dev + i, NULL, NULL, &open_err[i]);
    opened_at[i] = bench_now_ms() - t0;
  }
  return NULL; /* the contexts stay open, as the shim's would */
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s VENDOR_LIB K\n", argv[0]);
    return 2;
  }
  t0 = bench_now_ms();
  vendor_lib = argv[1];
  k = atoi(argv[2]);
  pthread_t thread;
  if (k > 0) pthread_create(&thread, NULL, open_early, NULL);

  pthread_mutex_lock(&lock);
  while (k > 0 && !vendor_started) pthread_cond_wait(&started, &lock);
  pthread_mutex_unlock(&lock);
  const double waited = bench_now_ms() - t0;
  cl_platform_id platforms[8];
  cl_uint np = 0;
  clGetPlatformIDs(8, platforms, &np);
  const double discovered = bench_now_ms() - t0;
  cl_platform_id mine = NULL;
  cl_device_id dev = NULL;
  for (cl_uint i = 0; i < np && !mine; ++i) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_GPU, 1, &dev, &nd) == CL_SUCCESS && nd) mine = platforms[i];
  }
  if (!mine && np) { /* no GPU (PoCL alone, as on a CI machine): the first device */
    cl_uint nd = 0;
    clGetDeviceIDs(platforms[0], CL_DEVICE_TYPE_ALL, 1, &dev, &nd);
    if (nd) mine = platforms[0];
  }
  if (!mine) {
    fprintf(stderr, "no device (%u platforms)\n", np);
    return 2;
  }
  cl_int err = 0;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)mine, 0};
  cl_context ctx = clCreateContext(props, 1, &dev, NULL, NULL, &err);
  const double context = bench_now_ms() - t0;
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4, NULL, &err);
  int v = 1;
  clEnqueueWriteBuffer(q, b, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL);
  const double written = bench_now_ms() - t0;
  char name[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  fflush(stdout);
  printf("K=%d app (%u platforms, %s): waited %.1f ms, platforms %.1f ms, its context %.1f ms (took %.1f), first write %.1f ms\n", k, np, name, waited, discovered,
         context, context - discovered, written);
  if (k > 0) {
    pthread_join(thread, NULL);
    printf("K=%d early: vendor loaded %.1f ms, its platform %.1f ms (same as the loader's: %s), contexts at", k,
           vendor_loaded_at, vendor_platform_at, vendor_platform == mine ? "yes" : "no");
    for (int i = 1; i <= k; ++i) printf(" %.1f (err %d)", opened_at[i], open_err[i]);
    printf("\n");
  }
  return 0;
}
