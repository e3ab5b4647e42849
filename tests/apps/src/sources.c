/* sources: how real apps hand kernel source to OpenCL.
 * Covers: clCreateProgramWithSource with several strings, explicit lengths
 * and no NUL terminators (CL_PROGRAM_SOURCE must give the concatenation),
 * a header on disk found through an absolute -I path and through a
 * relative "-I ." after chdir, function-like macros and typedefs in the
 * kernel source, a non-blocking read completed by polling the event status
 * after clFlush. */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "app_common.h"

static const char kHeader[] =
    "typedef int elem_t;\n"
    "#define COMBINE(a, b) ((a) * 5 - (b))\n"
    "inline elem_t twist(elem_t v) { return (v << 1) ^ (v >> 3); }\n";

/* Pieces of one source; lengths are given, none is NUL-terminated there. */
static const char kPart1[] =
    "#include \"apps_common_header.h\"\n__kernel void mix_values(__global co";
static const char kPart2[] = "nst elem_t* a, __global elem_t* out) {\n  size_t i = get_global_id(0);\n";
static const char kPart3[] = "  out[i] = COMBINE(twist(a[i]), (elem_t)i) + EXTRA;\n}\nTRAILING GARBAGE";

enum { N = 4096 };

static void run(cl_context ctx, cl_device_id dev, cl_command_queue q, cl_mem a, cl_mem out,
                const char* options, const char* name) {
  const char* parts[3] = {kPart1, kPart2, kPart3};
  size_t lengths[3] = {sizeof kPart1 - 1, sizeof kPart2 - 1, sizeof kPart3 - 1 - 16};
  static cl_int result[N];
  char source[512];
  size_t source_size = 0, global = N, local = 64;
  cl_event read;
  cl_int err, status = CL_QUEUED;
  struct timespec now, deadline;
  cl_program prog = clCreateProgramWithSource(ctx, 3, parts, lengths, &err);
  CHECK_ERR(err);
  err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[4096];
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "build failed (%d): %s\n", err, log);
    exit(1);
  }
  CHECK(clGetProgramInfo(prog, CL_PROGRAM_SOURCE, sizeof source, source, &source_size));
  app_print("source_size", (long long)source_size);
  app_print("source_matches",
            source_size == lengths[0] + lengths[1] + lengths[2] + 1 &&
                !strncmp(source, kPart1, lengths[0]) &&
                !strncmp(source + lengths[0], kPart2, lengths[1]) &&
                !strncmp(source + lengths[0] + lengths[1], kPart3, lengths[2]));
  cl_kernel k = app_kernel(prog, "mix_values");
  CHECK(clSetKernelArg(k, 0, sizeof a, &a));
  CHECK(clSetKernelArg(k, 1, sizeof out, &out));
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, out, CL_FALSE, 0, sizeof result, result, 0, NULL, &read));
  CHECK(clFlush(q));
  /* Poll (yielding the CPU) for up to 60 s of wall time. */
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += 60;
  for (;;) {
    CHECK(clGetEventInfo(read, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    if (status < 0) {
      fprintf(stderr, "read failed: %d\n", status);
      exit(1);
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (status == CL_COMPLETE || now.tv_sec > deadline.tv_sec) break;
    sched_yield();
  }
  app_print("read_completed_by_polling", status == CL_COMPLETE);
  CHECK(clFinish(q));
  app_dump(name, result, sizeof result);
  clReleaseEvent(read);
  clReleaseKernel(k);
  clReleaseProgram(prog);
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  static cl_int data[N];
  cl_mem a, out;
  char dir[] = "/tmp/libsplit-app-sources-XXXXXX", path[128], options[256];
  FILE* header;
  int i;

  app_open_output(argc, argv);
  if (!mkdtemp(dir)) {
    fprintf(stderr, "mkdtemp failed\n");
    return 1;
  }
  snprintf(path, sizeof path, "%s/apps_common_header.h", dir);
  header = fopen(path, "w");
  if (!header) return 1;
  fputs(kHeader, header);
  fclose(header);

  app_setup(&dev, &ctx, &q);
  for (i = 0; i < N; ++i) data[i] = (cl_int)(app_rand() % 100000u);
  a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  CHECK_ERR(err);
  out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof data, NULL, &err);
  CHECK_ERR(err);

  snprintf(options, sizeof options, "-I%s -DEXTRA=3", dir);
  run(ctx, dev, q, a, out, options, "absolute_include");
  if (chdir(dir) != 0) return 1;
  run(ctx, dev, q, a, out, "-I . -D EXTRA=-8", "relative_include");

  unlink(path);
  rmdir(dir);
  clReleaseMemObject(a);
  clReleaseMemObject(out);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
