/* binary_cache: a program cache as real apps keep one. When the file named
 * by $APP_BINARY_FILE exists, the program is created from that binary
 * (clCreateProgramWithBinary); otherwise it is built from source and, when
 * $APP_BINARY_FILE is set, its binary is saved there for the next run. The
 * kernel (a 1D stencil reading neighbours, writing its own element) runs a
 * few times; the result must not depend on where the program came from. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void smooth(__global const int* in, __global int* out, int n) {\n"
    "  int i = (int)get_global_id(0);\n"
    "  int l = i > 0 ? in[i - 1] : 0, r = i + 1 < n ? in[i + 1] : 0;\n"
    "  out[i] = (l + 2 * in[i] + r) / 4 + STEP;\n"
    "}\n";
static const char* kOptions = "-DSTEP=3";

enum { N = 8192 };

static unsigned char* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* data;
  long n;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  data = (unsigned char*)malloc(n > 0 ? (size_t)n : 1);
  if (n <= 0 || fread(data, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(data);
    return NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

int main(int argc, char** argv) {
  const char* cache = getenv("APP_BINARY_FILE");
  static cl_int data[N];
  cl_int err, status, n = N;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel k;
  cl_mem a, b;
  size_t global = N, local = 64, size = 0;
  unsigned char* binary = NULL;
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  if (cache) binary = read_all(cache, &size);
  if (binary) {
    const unsigned char* bins[1];
    bins[0] = binary;
    prog = clCreateProgramWithBinary(ctx, 1, &dev, &size, bins, &status, &err);
    CHECK_ERR(err);
    CHECK_ERR(status);
    CHECK(clBuildProgram(prog, 1, &dev, kOptions, NULL, NULL));
    fprintf(stderr, "binary_cache: program from %s\n", cache);
  } else {
    prog = app_build(ctx, dev, kSource, kOptions);
    if (cache) {
      unsigned char* bins[1];
      FILE* f;
      CHECK(clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL));
      binary = (unsigned char*)malloc(size);
      bins[0] = binary;
      CHECK(clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL));
      f = fopen(cache, "wb");
      if (!f || fwrite(binary, 1, size, f) != size) {
        fprintf(stderr, "cannot write %s\n", cache);
        return 2;
      }
      fclose(f);
    }
  }
  free(binary);

  for (i = 0; i < N; ++i) data[i] = (cl_int)(app_rand() % 10000u);
  a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  CHECK_ERR(err);
  b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof data, NULL, &err);
  CHECK_ERR(err);
  k = app_kernel(prog, "smooth");
  CHECK(clSetKernelArg(k, 2, sizeof n, &n));
  for (i = 0; i < 6; ++i) {
    cl_mem from = i % 2 ? b : a, to = i % 2 ? a : b;
    CHECK(clSetKernelArg(k, 0, sizeof from, &from));
    CHECK(clSetKernelArg(k, 1, sizeof to, &to));
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  }
  CHECK(clEnqueueReadBuffer(q, a, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL));
  app_dump("smoothed", data, sizeof data);
  clReleaseKernel(k);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
