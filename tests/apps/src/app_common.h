/* Small helpers shared by the test apps: error checks and the result dump.
 *
 * Every app writes each output buffer as "name <bytes>\n" followed by a hex
 * dump (32 bytes per line), to the file named by argv[1] or to stdout. The
 * test driver compares these dumps byte for byte between the native run and
 * the runs under the shim. Any OpenCL error ends the app with exit code 1. */
#ifndef APP_COMMON_H
#define APP_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE* app_out = NULL;

static inline void app_open_output(int argc, char** argv) {
  app_out = stdout;
  if (argc > 1) {
    app_out = fopen(argv[1], "wb");
    if (!app_out) {
      fprintf(stderr, "cannot open %s\n", argv[1]);
      exit(2);
    }
  }
}

static inline void app_close_output(void) {
  if (app_out && app_out != stdout) fclose(app_out);
  else fflush(stdout);
}

static inline void app_dump(const char* name, const void* data, size_t bytes) {
  static const char digits[] = "0123456789abcdef";
  const unsigned char* p = (const unsigned char*)data;
  char line[32 * 2 + 2];
  size_t i;
  fprintf(app_out, "%s %zu\n", name, bytes);
  for (i = 0; i < bytes; i += 32) {
    size_t n = bytes - i < 32 ? bytes - i : 32, k;
    for (k = 0; k < n; ++k) {
      line[2 * k] = digits[p[i + k] >> 4];
      line[2 * k + 1] = digits[p[i + k] & 15];
    }
    line[2 * n] = '\n';
    line[2 * n + 1] = 0;
    fputs(line, app_out);
  }
}

static inline void app_print(const char* name, long long value) {
  fprintf(app_out, "%s = %lld\n", name, value);
}

#define CHECK(call)                                                                \
  do {                                                                             \
    cl_int check_err_ = (call);                                                    \
    if (check_err_ != CL_SUCCESS) {                                                \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, check_err_); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

/* For calls that return the object and report through an errcode pointer. */
#define CHECK_ERR(err)                                                             \
  do {                                                                             \
    if ((err) != CL_SUCCESS) {                                                     \
      fprintf(stderr, "%s:%d: OpenCL error %d\n", __FILE__, __LINE__, (int)(err)); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

/* The first device of the first platform, like ordinary programs pick it. */
static inline cl_device_id app_first_device(cl_platform_id* platform_out) {
  cl_platform_id platform;
  cl_device_id device;
  CHECK(clGetPlatformIDs(1, &platform, NULL));
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  if (platform_out) *platform_out = platform;
  return device;
}

/* What most apps start with: the first device, a context on it and an
 * in-order queue without profiling (clCreateCommandQueue: the 1.2 call, which
 * apps written for 2.0 and later see as deprecated). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static inline void app_setup(cl_device_id* dev, cl_context* ctx, cl_command_queue* q) {
  cl_int err;
  *dev = app_first_device(NULL);
  *ctx = clCreateContext(NULL, 1, dev, NULL, NULL, &err);
  CHECK_ERR(err);
  *q = clCreateCommandQueue(*ctx, *dev, 0, &err);
  CHECK_ERR(err);
}
#pragma GCC diagnostic pop

/* clCreateKernel; exits on failure. */
static inline cl_kernel app_kernel(cl_program prog, const char* name) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateKernel(%s) failed: %d\n", name, (int)err);
    exit(1);
  }
  return k;
}

/* Builds source for one device; prints the build log and exits on failure. */
static inline cl_program app_build(cl_context ctx, cl_device_id dev, const char* src,
                            const char* options) {
  cl_int err;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CHECK_ERR(err);
  err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    size_t len = 0;
    char* log;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
    log = (char*)malloc(len + 1);
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL);
    log[len] = 0;
    fprintf(stderr, "build failed (%d):\n%s\n", err, log);
    exit(1);
  }
  return prog;
}

/* Deterministic pseudo-random integers (xorshift), independent of libc. */
static unsigned app_rand_state = 12345u;
static inline unsigned app_rand(void) {
  app_rand_state ^= app_rand_state << 13;
  app_rand_state ^= app_rand_state >> 17;
  app_rand_state ^= app_rand_state << 5;
  return app_rand_state;
}
/* Small float with an exact binary value: a multiple of 1/8 in [-8, 8). */
static inline float app_randf(void) { return (float)((int)(app_rand() % 128u) - 64) / 8.0f; }

#endif
