// A CLBlast user: n x n single-precision GEMM three times through CLBlast's
// C API on the first device, the checksum of C printed. CLBlast compiles its
// kernels at the first call (seconds on PoCL with a cold cache), which is
// what made an app using it crash at exit under the shim.
// usage: clblast_sgemm N
#include <clblast_c.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? (size_t)atoi(argv[1]) : 256;
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS) {
    fprintf(stderr, "no OpenCL device\n");
    return 1;
  }
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  float* a = malloc(n * n * sizeof(float));
  float* b = malloc(n * n * sizeof(float));
  float* c = calloc(n * n, sizeof(float));
  for (size_t i = 0; i < n * n; ++i) a[i] = (float)(i % 7) * 0.5f, b[i] = (float)(i % 5) * 0.25f;
  cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * n * 4, a, &err);
  cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * n * 4, b, &err);
  cl_mem dc = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * n * 4, c, &err);
  for (int it = 0; it < 3; ++it) {
    CLBlastStatusCode s = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n,
                                       1.0f, da, 0, n, db, 0, n, it == 0 ? 0.0f : 0.5f, dc, 0, n, &q, NULL);
    if (s != CLBlastSuccess) {
      printf("sgemm failed: %d\n", (int)s);
      return 1;
    }
  }
  clEnqueueReadBuffer(q, dc, CL_TRUE, 0, n * n * 4, c, 0, NULL, NULL);
  unsigned long long h = 1469598103934665603ull;
  const unsigned char* bytes = (const unsigned char*)c;
  for (size_t i = 0; i < n * n * 4; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  printf("n=%zu c[0]=%.6f c[last]=%.6f fnv=%016llx\n", n, c[0], c[n * n - 1], h);
  clReleaseMemObject(da);
  clReleaseMemObject(db);
  clReleaseMemObject(dc);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  free(a), free(b), free(c);
  return 0;
}
