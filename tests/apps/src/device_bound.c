/* device_bound: the features libsplit ties to the app's device, next to a
 * splittable buffer kernel.
 * Covers: the device's answers to the image / sampler / pipe / SVM /
 * native-kernel queries (raw bytes, so the shim must answer exactly as the
 * device does); clCreatePipe (PoCL has no pipes: the error code); coarse-
 * and fine-grained SVM (clSVMAlloc, clEnqueueSVMMap/Unmap/Memcpy/MemFill,
 * clSetKernelArgSVMPointer, an SVM pointer reached through another SVM
 * allocation with clSetKernelExecInfo(CL_KERNEL_EXEC_INFO_SVM_PTRS),
 * clEnqueueSVMFree with a callback); clEnqueueNativeKernel on a buffer a
 * kernel wrote and a later kernel reads, and its argument errors. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "typedef struct { __global float* data; int n; } Holder;\n"
    "__kernel void axpy(__global float* y, __global const float* x, float a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__kernel void through(__global Holder* h) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < h->n) h->data[i] = h->data[i] * 0.5f + (float)i;\n"
    "}\n"
    "__kernel void square(__global float* v) {\n"
    "  size_t i = get_global_id(0);\n"
    "  v[i] = v[i] * v[i] - 3.0f;\n"
    "}\n";

enum { N = 1024 };

typedef struct {
  float* data;
  int n;
} Holder;

static void dump_info(cl_device_id dev, const char* name, cl_device_info param) {
  size_t n = 0;
  unsigned char* bytes;
  cl_int err = clGetDeviceInfo(dev, param, 0, NULL, &n);
  if (err != CL_SUCCESS) {
    app_print(name, err);
    return;
  }
  bytes = (unsigned char*)calloc(n ? n : 1, 1);
  CHECK(clGetDeviceInfo(dev, param, n, bytes, NULL));
  app_dump(name, bytes, n);
  free(bytes);
}

static int freed = 0;
static void CL_CALLBACK free_svm(cl_command_queue q, cl_uint n, void* ptrs[], void* user) {
  cl_uint i;
  for (i = 0; i < n; ++i) clSVMFree((cl_context)user, ptrs[i]);
  freed += (int)n;
  (void)q;
}

/* The native kernel: its argument block holds a buffer's address (set by the
 * runtime in place of the cl_mem) and a count. */
typedef struct {
  float* v;
  int n;
  float add;
} NativeArgs;

static void CL_CALLBACK host_kernel(void* p) {
  NativeArgs* a = (NativeArgs*)p;
  int i;
  for (i = 0; i < a->n; ++i) a->v[i] = a->v[i] * 0.25f + a->add + (float)(i % 7);
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel axpy, through, square;
  cl_device_svm_capabilities svm = 0;
  cl_device_exec_capabilities exec = 0;
  cl_mem pipe, buf, xbuf;
  static float host[N], xs[N];
  size_t n = N, i;
  float a = 1.5f;

  app_open_output(argc, argv);
  dev = app_first_device(NULL);
  dump_info(dev, "image_support", CL_DEVICE_IMAGE_SUPPORT);
  dump_info(dev, "image2d_max_width", CL_DEVICE_IMAGE2D_MAX_WIDTH);
  dump_info(dev, "image2d_max_height", CL_DEVICE_IMAGE2D_MAX_HEIGHT);
  dump_info(dev, "image3d_max_width", CL_DEVICE_IMAGE3D_MAX_WIDTH);
  dump_info(dev, "image3d_max_depth", CL_DEVICE_IMAGE3D_MAX_DEPTH);
  dump_info(dev, "image_max_buffer_size", CL_DEVICE_IMAGE_MAX_BUFFER_SIZE);
  dump_info(dev, "image_max_array_size", CL_DEVICE_IMAGE_MAX_ARRAY_SIZE);
  dump_info(dev, "max_read_image_args", CL_DEVICE_MAX_READ_IMAGE_ARGS);
  dump_info(dev, "max_write_image_args", CL_DEVICE_MAX_WRITE_IMAGE_ARGS);
  dump_info(dev, "max_read_write_image_args", CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS);
  dump_info(dev, "max_samplers", CL_DEVICE_MAX_SAMPLERS);
  dump_info(dev, "image_pitch_alignment", CL_DEVICE_IMAGE_PITCH_ALIGNMENT);
  dump_info(dev, "image_base_address_alignment", CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT);
  dump_info(dev, "svm_capabilities", CL_DEVICE_SVM_CAPABILITIES);
  dump_info(dev, "execution_capabilities", CL_DEVICE_EXECUTION_CAPABILITIES);
  dump_info(dev, "pipe_support", CL_DEVICE_PIPE_SUPPORT);
  dump_info(dev, "max_pipe_args", CL_DEVICE_MAX_PIPE_ARGS);
  dump_info(dev, "pipe_max_packet_size", CL_DEVICE_PIPE_MAX_PACKET_SIZE);
  dump_info(dev, "extensions", CL_DEVICE_EXTENSIONS);
  dump_info(dev, "extensions_with_version", CL_DEVICE_EXTENSIONS_WITH_VERSION);
  dump_info(dev, "opencl_c_features", CL_DEVICE_OPENCL_C_FEATURES);
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL));
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof exec, &exec, NULL));

  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK_ERR(err);
  q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
  CHECK_ERR(err);
  prog = app_build(ctx, dev, kSource, NULL);
  axpy = app_kernel(prog, "axpy");
  through = app_kernel(prog, "through");
  square = app_kernel(prog, "square");

  pipe = clCreatePipe(ctx, CL_MEM_READ_WRITE, 4, 64, NULL, &err);
  app_print("create_pipe", err);
  app_print("pipe_null", pipe == NULL);
  if (pipe) clReleaseMemObject(pipe);

  for (i = 0; i < N; ++i) host[i] = (float)i * 0.5f, xs[i] = (float)(N - i);
  buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  CHECK_ERR(err);
  xbuf = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof xs, xs, &err);
  CHECK_ERR(err);

  if (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
    float* y = (float*)clSVMAlloc(ctx, CL_MEM_READ_WRITE, sizeof host, 0);
    float* x = (float*)clSVMAlloc(ctx, CL_MEM_READ_ONLY, sizeof host, 0);
    Holder* h = (Holder*)clSVMAlloc(ctx, CL_MEM_READ_WRITE, sizeof(Holder), 0);
    float pattern = 2.0f;
    void* to_free[3];
    if (!y || !x || !h) {
      fprintf(stderr, "clSVMAlloc failed\n");
      return 1;
    }
    CHECK(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_WRITE, y, sizeof host, 0, NULL, NULL));
    for (i = 0; i < N; ++i) y[i] = (float)(i % 13);
    CHECK(clEnqueueSVMUnmap(q, y, 0, NULL, NULL));
    CHECK(clEnqueueSVMMemFill(q, x, &pattern, sizeof pattern, sizeof host, 0, NULL, NULL));
    CHECK(clSetKernelArgSVMPointer(axpy, 0, y));
    CHECK(clSetKernelArgSVMPointer(axpy, 1, x));
    CHECK(clSetKernelArg(axpy, 2, sizeof a, &a));
    CHECK(clEnqueueNDRangeKernel(q, axpy, 1, NULL, &n, NULL, 0, NULL, NULL));
    CHECK(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_WRITE, h, sizeof(Holder), 0, NULL, NULL));
    h->data = y;
    h->n = N - 100;
    CHECK(clEnqueueSVMUnmap(q, h, 0, NULL, NULL));
    CHECK(clSetKernelArgSVMPointer(through, 0, h));
    CHECK(clSetKernelExecInfo(through, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof(void*), &y));
    CHECK(clEnqueueNDRangeKernel(q, through, 1, NULL, &n, NULL, 0, NULL, NULL));
    /* SVM -> buffer kernel input through a host copy, then a split kernel. */
    CHECK(clEnqueueSVMMemcpy(q, CL_TRUE, host, y, sizeof host, 0, NULL, NULL));
    app_dump("svm_coarse", host, sizeof host);
    CHECK(clEnqueueWriteBuffer(q, xbuf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
    CHECK(clSetKernelArg(axpy, 0, sizeof buf, &buf));
    CHECK(clSetKernelArg(axpy, 1, sizeof xbuf, &xbuf));
    CHECK(clEnqueueNDRangeKernel(q, axpy, 1, NULL, &n, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
    app_dump("after_svm_buffer_kernel", host, sizeof host);
    to_free[0] = y, to_free[1] = x, to_free[2] = h;
    CHECK(clEnqueueSVMFree(q, 3, to_free, free_svm, ctx, 0, NULL, NULL));
    CHECK(clFinish(q));
    app_print("svm_freed", freed);
  }
  if (svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) {
    float* f = (float*)clSVMAlloc(ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, sizeof host, 0);
    if (!f) {
      fprintf(stderr, "fine-grained clSVMAlloc failed\n");
      return 1;
    }
    for (i = 0; i < N; ++i) f[i] = (float)i * 0.125f;
    CHECK(clSetKernelArgSVMPointer(square, 0, f));
    CHECK(clEnqueueNDRangeKernel(q, square, 1, NULL, &n, NULL, 0, NULL, NULL));
    CHECK(clFinish(q));
    app_dump("svm_fine", f, sizeof host);
    clSVMFree(ctx, f);
  }

  if (exec & CL_EXEC_NATIVE_KERNEL) {
    NativeArgs args;
    const void* locs[1];
    args.v = NULL;
    args.n = N;
    args.add = 0.75f;
    memcpy(&args.v, &buf, sizeof buf); /* the cl_mem, replaced by its address */
    locs[0] = &args.v;
    CHECK(clSetKernelArg(square, 0, sizeof buf, &buf));
    CHECK(clEnqueueNDRangeKernel(q, square, 1, NULL, &n, NULL, 0, NULL, NULL));
    CHECK(clEnqueueNativeKernel(q, host_kernel, &args, sizeof args, 1, &buf, locs, 0, NULL, NULL));
    CHECK(clEnqueueNDRangeKernel(q, square, 1, NULL, &n, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
    app_dump("native_kernel", host, sizeof host);
    app_print("native_null_func",
              clEnqueueNativeKernel(q, NULL, &args, sizeof args, 1, &buf, locs, 0, NULL, NULL));
    app_print("native_no_locs",
              clEnqueueNativeKernel(q, host_kernel, &args, sizeof args, 1, &buf, NULL, 0, NULL, NULL));
  }

  clReleaseMemObject(buf);
  clReleaseMemObject(xbuf);
  clReleaseKernel(axpy);
  clReleaseKernel(through);
  clReleaseKernel(square);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
