/* deferred: host memory reused right after a transfer is complete.
 * OpenCL 1.2 (5.2.2): after a non-blocking clEnqueueWriteBuffer, the host
 * memory may be reused once the write's event is complete (clWaitForEvents
 * or clFinish); a blocking write returns when the memory may be reused. The
 * buffer then holds the data as of the write, so kernels launched after the
 * app scribbled over its array must still see the ORIGINAL data. A runtime
 * that defers the real transfer until a launch must have copied it first.
 * Covers also non-blocking reads completed by event waits, and launches
 * whose wait list holds the write event. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void combine(__global const int* a, __global const int* b, __global int* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = a[i] * 10 + b[i];\n"
    "}\n";

enum { N = 8192 };

static void scribble(cl_int* v, cl_int value) {
  int i;
  for (i = 0; i < N; ++i) v[i] = value + i % 7;
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel k;
  static cl_int host[N], out[N];
  cl_mem ba, bb, bout;
  cl_event write_a, write_b, launch, read;
  size_t global = N, local = 128;
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, "");
  k = app_kernel(prog, "combine");
  ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY, sizeof host, NULL, &err);
  CHECK_ERR(err);
  bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY, sizeof host, NULL, &err);
  CHECK_ERR(err);
  bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(k, 0, sizeof ba, &ba));
  CHECK(clSetKernelArg(k, 1, sizeof bb, &bb));
  CHECK(clSetKernelArg(k, 2, sizeof bout, &bout));

  /* 1. Non-blocking write of a, wait on its event, then reuse the array for
   *    b (another non-blocking write), overwrite the array again and launch
   *    with b's write event in the wait list. */
  for (i = 0; i < N; ++i) host[i] = (cl_int)(app_rand() % 1000u);
  CHECK(clEnqueueWriteBuffer(q, ba, CL_FALSE, 0, sizeof host, host, 0, NULL, &write_a));
  CHECK(clWaitForEvents(1, &write_a));
  for (i = 0; i < N; ++i) host[i] = (cl_int)(app_rand() % 10u);
  CHECK(clEnqueueWriteBuffer(q, bb, CL_FALSE, 0, sizeof host, host, 0, NULL, &write_b));
  CHECK(clWaitForEvents(1, &write_b));
  scribble(host, -50000);
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 1, &write_b, &launch));
  CHECK(clEnqueueReadBuffer(q, bout, CL_FALSE, 0, sizeof out, out, 1, &launch, &read));
  CHECK(clWaitForEvents(1, &read));
  app_dump("after_event_wait", out, sizeof out);
  clReleaseEvent(write_a);
  clReleaseEvent(write_b);
  clReleaseEvent(launch);
  clReleaseEvent(read);

  /* 2. Non-blocking write of part of b, clFinish, overwrite, launch. */
  for (i = 0; i < N; ++i) host[i] = (cl_int)(app_rand() % 10u);
  CHECK(clEnqueueWriteBuffer(q, bb, CL_FALSE, 1024 * sizeof(cl_int), 2048 * sizeof(cl_int),
                             host + 1024, 0, NULL, NULL));
  CHECK(clFinish(q));
  scribble(host, 777);
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("after_finish", out, sizeof out);

  /* 3. Blocking write: the array is free as soon as the call returns. */
  for (i = 0; i < N; ++i) host[i] = (cl_int)(app_rand() % 1000u);
  CHECK(clEnqueueWriteBuffer(q, ba, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
  scribble(host, 31337);
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  /* 4. Non-blocking read into the array just scribbled on, then clFinish. */
  CHECK(clEnqueueReadBuffer(q, bout, CL_FALSE, 0, sizeof host, host, 0, NULL, NULL));
  CHECK(clFinish(q));
  app_dump("after_blocking_write", host, sizeof host);

  /* 5. Two launches back to back, the second reading what the first wrote
   *    (out -> a via copy), with non-blocking writes of fresh b data in
   *    between whose source array is reused after clFinish. */
  CHECK(clEnqueueCopyBuffer(q, bout, ba, 0, 0, sizeof out, 0, NULL, NULL));
  for (i = 0; i < N; ++i) host[i] = (cl_int)(app_rand() % 10u);
  CHECK(clEnqueueWriteBuffer(q, bb, CL_FALSE, 0, sizeof host, host, 0, NULL, NULL));
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clFinish(q));
  scribble(host, 5);
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("chained", out, sizeof out);

  /* 6. In-order queue: a non-blocking read enqueued BEFORE a launch that
   *    overwrites the buffer must return the data from before the launch;
   *    a non-blocking write enqueued after the launch must not be seen by
   *    it. The input buffers are released right after the last enqueue
   *    (OpenCL keeps them alive until the commands finish). */
  {
    static cl_int before[N], after[N];
    for (i = 0; i < N; ++i) host[i] = (cl_int)(app_rand() % 10u);
    CHECK(clEnqueueReadBuffer(q, bout, CL_FALSE, 0, sizeof before, before, 0, NULL, NULL));
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
    CHECK(clEnqueueWriteBuffer(q, bb, CL_FALSE, 0, sizeof host, host, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, bout, CL_FALSE, 0, sizeof after, after, 0, NULL, NULL));
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
    clReleaseMemObject(ba);
    clReleaseMemObject(bb);
    CHECK(clEnqueueReadBuffer(q, bout, CL_FALSE, 0, sizeof out, out, 0, NULL, NULL));
    CHECK(clFinish(q));
    app_dump("read_before_launch", before, sizeof before);
    app_dump("read_between_launches", after, sizeof after);
    app_dump("after_released_inputs", out, sizeof out);
  }

  clReleaseMemObject(bout);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
