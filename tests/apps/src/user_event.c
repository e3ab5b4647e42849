/* user_event: a user event gating transfers and launches.
 * Covers: clCreateUserEvent, a non-blocking write and two launches (on two
 * queues) held back by it, status queries while gated, a callback on the
 * user event and on the last launch, clSetUserEventStatus releasing the
 * chain, the host array reused after the gated write completed.
 * Note: PoCL 3.1's "basic" device deadlocks when a user event it waits on
 * is completed, so natively this app is only run on "pthread". */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <time.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void twice_plus(__global int* v, int add) {\n"
    "  size_t i = get_global_id(0);\n"
    "  v[i] = v[i] * 2 + add;\n"
    "}\n";

enum { N = 4096 };

static volatile int callbacks_done = 0;

static void CL_CALLBACK on_complete(cl_event ev, cl_int status, void* user) {
  (void)ev;
  (void)user;
  if (status == CL_COMPLETE) __sync_fetch_and_add(&callbacks_done, 1);
}

static cl_int status_of(cl_event ev) {
  cl_int s;
  CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
  return s;
}

int main(int argc, char** argv) {
  cl_int err, add1 = 1, add2 = -5;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q1, q2;
  cl_program prog;
  cl_kernel k;
  static cl_int host[N], out[N];
  cl_mem buf;
  cl_event gate, wrote, e1, e2;
  cl_command_type type;
  size_t global = N, local = 64;
  int i, waited;

  app_open_output(argc, argv);
  dev = app_first_device(NULL);
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK_ERR(err);
  q1 = clCreateCommandQueue(ctx, dev, 0, &err);
  CHECK_ERR(err);
  q2 = clCreateCommandQueue(ctx, dev, 0, &err);
  CHECK_ERR(err);
  prog = app_build(ctx, dev, kSource, "");
  k = app_kernel(prog, "twice_plus");
  buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
  CHECK_ERR(err);
  for (i = 0; i < N; ++i) host[i] = (cl_int)(app_rand() % 1000u);

  gate = clCreateUserEvent(ctx, &err);
  CHECK_ERR(err);
  CHECK(clSetEventCallback(gate, CL_COMPLETE, on_complete, NULL));
  CHECK(clEnqueueWriteBuffer(q1, buf, CL_FALSE, 0, sizeof host, host, 1, &gate, &wrote));
  CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
  CHECK(clSetKernelArg(k, 1, sizeof add1, &add1));
  CHECK(clEnqueueNDRangeKernel(q1, k, 1, NULL, &global, &local, 0, NULL, &e1));
  CHECK(clSetKernelArg(k, 1, sizeof add2, &add2));
  CHECK(clEnqueueNDRangeKernel(q2, k, 1, NULL, &global, NULL, 1, &e1, &e2));
  CHECK(clSetEventCallback(e2, CL_COMPLETE, on_complete, NULL));
  CHECK(clFlush(q1));
  CHECK(clFlush(q2));

  app_print("gate_submitted", status_of(gate) == CL_SUBMITTED);
  app_print("write_pending", status_of(wrote) > CL_COMPLETE);
  app_print("e1_pending", status_of(e1) > CL_COMPLETE);
  app_print("e2_pending", status_of(e2) > CL_COMPLETE);
  CHECK(clGetEventInfo(gate, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  app_print("gate_is_user", type == CL_COMMAND_USER);

  CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CHECK(clWaitForEvents(1, &wrote));
  for (i = 0; i < N; ++i) host[i] = -1; /* the write is complete: the array is free */
  CHECK(clWaitForEvents(1, &e2));
  app_print("e1_complete", status_of(e1) == CL_COMPLETE);
  CHECK(clEnqueueReadBuffer(q2, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("released_chain", out, sizeof out);
  for (waited = 0; callbacks_done < 2 && waited < 30000; ++waited) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  app_print("callbacks", callbacks_done);

  clReleaseEvent(gate);
  clReleaseEvent(wrote);
  clReleaseEvent(e1);
  clReleaseEvent(e2);
  clReleaseMemObject(buf);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q1);
  clReleaseCommandQueue(q2);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
