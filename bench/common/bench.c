#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(const char* app_name, int default_iters) {
  fprintf(stderr,
          "usage: %s [--size small|medium|large] [--iters N] [--device N]\n"
          "          [--per-iter] [--no-check] [--dump FILE]\n"
          "  --size      problem-size preset (default small)\n"
          "  --iters     iterations of the kernel loop (default %d)\n"
          "  --device    device index, numbering the devices of all platforms\n"
          "              in order (default 0)\n"
          "  --per-iter  print the time of every iteration\n"
          "  --no-check  skip the CPU reference check\n"
          "  --dump      write the result buffer's bytes to FILE\n",
          app_name, default_iters);
}

static int parse_int(const char* text, int* out) {
  char* end = NULL;
  long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 0 || value > 1000000000) return 0;
  *out = (int)value;
  return 1;
}

bench_options bench_parse_args(int argc, char** argv, const char* app_name,
                               int default_iters) {
  bench_options opts = {BENCH_SMALL, default_iters, 0, 0, 1, NULL};
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(arg, "--size") == 0 && value) {
      if (strcmp(value, "small") == 0) opts.size = BENCH_SMALL;
      else if (strcmp(value, "medium") == 0) opts.size = BENCH_MEDIUM;
      else if (strcmp(value, "large") == 0) opts.size = BENCH_LARGE;
      else {
        fprintf(stderr, "%s: unknown size '%s'\n", app_name, value);
        usage(app_name, default_iters);
        exit(2);
      }
      ++i;
    } else if (strcmp(arg, "--iters") == 0 && value) {
      if (!parse_int(value, &opts.iters) || opts.iters < 1) {
        fprintf(stderr, "%s: bad --iters '%s'\n", app_name, value);
        exit(2);
      }
      ++i;
    } else if (strcmp(arg, "--device") == 0 && value) {
      if (!parse_int(value, &opts.device)) {
        fprintf(stderr, "%s: bad --device '%s'\n", app_name, value);
        exit(2);
      }
      ++i;
    } else if (strcmp(arg, "--dump") == 0 && value) {
      opts.dump = value;
      ++i;
    } else if (strcmp(arg, "--per-iter") == 0) {
      opts.per_iter = 1;
    } else if (strcmp(arg, "--no-check") == 0) {
      opts.check = 0;
    } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      usage(app_name, default_iters);
      exit(0);
    } else {
      fprintf(stderr, "%s: unknown or incomplete argument '%s'\n", app_name, arg);
      usage(app_name, default_iters);
      exit(2);
    }
  }
  return opts;
}

void bench_check_cl(cl_int err, const char* what) {
  if (err == CL_SUCCESS) return;
  fprintf(stderr, "OpenCL error %d in %s\n", (int)err, what);
  exit(3);
}

// How long the first clGetPlatformIDs took: the drivers' own start-up
// (NVIDIA's takes 0.5-1.4 s, varying by that much from process to process),
// printed so that wall-time comparisons can be made without its noise.
static double g_discovery_ms = -1;

cl_device_id bench_pick_device(int index) {
  cl_uint num_platforms = 0;
  const double t0 = bench_now_ms();
  BENCH_CL(clGetPlatformIDs(0, NULL, &num_platforms));
  if (g_discovery_ms < 0) g_discovery_ms = bench_now_ms() - t0;
  if (num_platforms == 0) {
    fprintf(stderr, "no OpenCL platform\n");
    exit(3);
  }
  cl_platform_id* platforms = malloc(num_platforms * sizeof *platforms);
  BENCH_CL(clGetPlatformIDs(num_platforms, platforms, NULL));
  // Devices are numbered across platforms, in the loader's platform order.
  cl_device_id picked = NULL;
  cl_uint remaining = (cl_uint)index;
  for (cl_uint p = 0; p < num_platforms && !picked; ++p) {
    cl_uint num_devices = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &num_devices) !=
            CL_SUCCESS ||
        num_devices == 0)
      continue;
    if (remaining >= num_devices) {
      remaining -= num_devices;
      continue;
    }
    cl_device_id* devices = malloc(num_devices * sizeof *devices);
    BENCH_CL(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, num_devices, devices,
                            NULL));
    picked = devices[remaining];
    free(devices);
  }
  free(platforms);
  if (!picked) {
    fprintf(stderr, "no OpenCL device %d (devices are numbered across all platforms)\n",
            index);
    exit(3);
  }
  char name[256] = {0};
  clGetDeviceInfo(picked, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
  fprintf(stderr, "device %d: %s\n", index, name);
  return picked;
}

bench_cl bench_open(int index) {
  bench_cl cl;
  memset(&cl, 0, sizeof cl);
  cl.device = bench_pick_device(index);
  BENCH_CL(clGetDeviceInfo(cl.device, CL_DEVICE_PLATFORM, sizeof cl.platform,
                           &cl.platform, NULL));
  cl_int err;
  cl.context = clCreateContext(NULL, 1, &cl.device, NULL, NULL, &err);
  BENCH_CL(err);
  cl.queue = clCreateCommandQueueWithProperties(cl.context, cl.device, NULL, &err);
  BENCH_CL(err);
  return cl;
}

void bench_close(bench_cl* cl) {
  if (cl->queue) clReleaseCommandQueue(cl->queue);
  if (cl->context) clReleaseContext(cl->context);
  cl->queue = NULL;
  cl->context = NULL;
}

cl_program bench_build(cl_context context, cl_device_id device,
                       const char* source, const char* options) {
  cl_int err;
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  BENCH_CL(err);
  err = clBuildProgram(program, 1, &device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
    char* log = calloc(size + 1, 1);
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
    fprintf(stderr, "program build failed (%d):\n%s\n", (int)err, log);
    free(log);
    exit(3);
  }
  return program;
}

cl_kernel bench_kernel(cl_program program, const char* name) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateKernel(%s) failed: %d\n", name, (int)err);
    exit(3);
  }
  return kernel;
}

cl_mem bench_buffer(cl_context context, cl_mem_flags flags, size_t bytes,
                    void* host) {
  cl_int err;
  cl_mem mem = clCreateBuffer(context, flags, bytes, host, &err);
  bench_check_cl(err, "clCreateBuffer");
  return mem;
}

size_t bench_round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

double bench_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

double bench_quantile(double* v, size_t n, double q) {
  qsort(v, n, sizeof *v, compare_doubles);
  size_t i = (size_t)(q * (double)n);
  return v[i < n ? i : n - 1];
}

double bench_time_kernel(const bench_cl* cl, cl_kernel kernel, cl_uint dims,
                         const size_t* global, const size_t* local, int iters,
                         double* iter_ms) {
  double start = bench_now_ms();
  for (int it = 0; it < iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl->queue, kernel, dims, NULL, global, local, 0, NULL,
                                    NULL));
    BENCH_CL(clFinish(cl->queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  return bench_now_ms() - start;
}

void bench_fill(float* data, size_t n, unsigned seed, float lo, float hi) {
  // 32-bit LCG (Numerical Recipes constants), top 24 bits as the fraction.
  unsigned state = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    data[i] = lo + (hi - lo) * (float)(state >> 8) * (1.0f / 16777216.0f);
  }
}

double bench_max_abs(const float* data, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = fmax(m, fabs((double)data[i]));
  return m;
}

int bench_compare(const char* what, const float* got, const float* ref,
                  size_t n, double rtol, double atol) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    double g = got[i], r = ref[i];
    if (!(fabs(g - r) <= atol + rtol * fabs(r))) {  // also catches NaN
      if (bad < 5)
        fprintf(stderr, "%s[%zu]: got %.7g, expected %.7g\n", what, i, g, r);
      ++bad;
    }
  }
  if (bad) fprintf(stderr, "%s: %zu of %zu values differ\n", what, bad, n);
  return bad == 0;
}

int bench_finish(const bench_options* opts, const double* iter_ms, int iters,
                 double total_ms, int ok) {
  if (opts->per_iter)
    for (int i = 0; i < iters; ++i) printf("iter=%d ms=%.4f\n", i, iter_ms[i]);
  if (!opts->check) printf("CHECK SKIPPED\n");
  else printf("%s\n", ok ? "PASS" : "FAIL");
  printf("time_ms=%.4f\n", total_ms);
  fflush(stdout);
  // On stderr: stdout is what runs natively and under the shim must share.
  if (g_discovery_ms >= 0) fprintf(stderr, "discovery_ms=%.1f\n", g_discovery_ms);
  return opts->check && !ok ? 1 : 0;
}

void bench_dump(const bench_options* opts, const void* result, size_t bytes) {
  if (!opts->dump) return;
  FILE* f = fopen(opts->dump, "wb");
  if (!f || fwrite(result, 1, bytes, f) != bytes || fclose(f) != 0) {
    fprintf(stderr, "cannot write --dump file %s\n", opts->dump);
    exit(2);
  }
}
