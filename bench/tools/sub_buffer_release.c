/* Overlapping sub-buffers of one buffer, each the argument of a kernel
 * built for it (as the CTS's sub_buffers_overlapping reads them), released
 * only at the end with the parent (as libsplit releases its device
 * sub-buffers when the buffer's store dies), with read-only or read-write
 * flags, overlapping or apart (issue 27: under the shim that test crashed in
 * NVIDIA's clReleaseMemObject at the store's end; natively it passes). Does
 * the driver itself survive each pattern? Prints "released ok" if so.
 * ORDER: forward (sub-buffers 0..15, then the parent; the default), reverse
 * (15..0, then the parent: the CTS's order), each (each sub-buffer right
 * after its kernel), parent (the parent first, then 0..15). USE: kernel (the
 * default) or read (clEnqueueReadBuffer from the sub-buffer, no kernel).
 *
 *   sub_buffer_release ro|rw overlap|apart PLATFORM [ORDER] [USE] */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static const char* src = "__kernel void readTest(__global const char* in, __global char* out) {"
                         " size_t i = get_global_id(0); out[i] = in[i]; }";
#define CHECK(x) do { cl_int e_ = (x); if (e_) { printf("%s -> %d\n", #x, e_); return 1; } } while (0)
int main(int argc, char** argv) {
  int rw = argc > 1 && !strcmp(argv[1], "rw"), overlap = !(argc > 2 && !strcmp(argv[2], "apart"));
  int plat = argc > 3 ? atoi(argv[3]) : 1;
  const char* order = argc > 4 ? argv[4] : "forward";
  int by_kernel = !(argc > 5 && !strcmp(argv[5], "read"));
  cl_platform_id ps[4]; cl_uint np; CHECK(clGetPlatformIDs(4, ps, &np));
  cl_device_id dev; CHECK(clGetDeviceIDs(ps[plat], CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
  cl_int err; cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err); CHECK(err);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err); CHECK(err);
  size_t n = 64 << 20; char* host = malloc(n); for (size_t i = 0; i < n; ++i) host[i] = (char)(i * 7);
  cl_mem parent = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n, NULL, &err); CHECK(err);
  CHECK(clEnqueueWriteBuffer(q, parent, CL_TRUE, 0, n, host, 0, NULL, NULL));
  cl_mem subs[16]; char* back = malloc(n);
  for (int i = 0; i < 16; ++i) {
    size_t origin = overlap ? (size_t)(i * 4096 * 37) % (n / 2) : (size_t)i * (n / 16);
    size_t size = overlap ? n / 4 : n / 16;
    cl_buffer_region r = {origin, size};
    subs[i] = clCreateSubBuffer(parent, rw ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &r, &err); CHECK(err);
    if (!by_kernel) {
      CHECK(clEnqueueReadBuffer(q, subs[i], CL_TRUE, 0, size, back, 0, NULL, NULL));
      if (memcmp(back, host + origin, size)) { printf("sub %d differs\n", i); return 1; }
      if (!strcmp(order, "each")) CHECK(clReleaseMemObject(subs[i]));
      continue;
    }
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err); CHECK(err);
    CHECK(clBuildProgram(p, 1, &dev, NULL, NULL, NULL));
    cl_kernel k = clCreateKernel(p, "readTest", &err); CHECK(err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, NULL, &err); CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &subs[i]));
    CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &out));
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &size, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, size, back, 0, NULL, NULL));
    if (memcmp(back, host + origin, size)) { printf("sub %d differs\n", i); return 1; }
    clReleaseMemObject(out); clReleaseKernel(k); clReleaseProgram(p);
    if (!strcmp(order, "each")) CHECK(clReleaseMemObject(subs[i]));
  }
  printf("launches ok; releasing (%s)\n", order); fflush(stdout);
  if (!strcmp(order, "parent")) CHECK(clReleaseMemObject(parent));
  if (!strcmp(order, "reverse"))
    for (int i = 15; i >= 0; --i) CHECK(clReleaseMemObject(subs[i]));
  else if (strcmp(order, "each"))
    for (int i = 0; i < 16; ++i) CHECK(clReleaseMemObject(subs[i]));
  if (strcmp(order, "parent")) CHECK(clReleaseMemObject(parent));
  printf("released ok\n");
  return 0;
}
