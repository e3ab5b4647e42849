/* events: synchronisation between queues and the host.
 * Covers: two in-order queues sharing buffers, cross-queue wait lists,
 * event callbacks, markers and barriers with wait lists, event queries, a
 * profiling queue, an out-of-order queue (when the device has one) ordered
 * by events only. (User events are in user_event.c: PoCL 3.1's "basic"
 * device deadlocks on them.) */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <time.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void advance(__global int* v, int add) {\n"
    "  size_t i = get_global_id(0);\n"
    "  v[i] = v[i] * 2 + add;\n"
    "}\n"
    "__kernel void sum2(__global const int* a, __global const int* b, __global int* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = a[i] - 3 * b[i];\n"
    "}\n";

enum { N = 4096 };

static volatile int callbacks_done = 0;
static volatile int callback_status_sum = 0;

static void CL_CALLBACK on_complete(cl_event ev, cl_int status, void* user) {
  (void)ev;
  __sync_fetch_and_add(&callback_status_sum, status + *(int*)user);
  __sync_fetch_and_add(&callbacks_done, 1);
}

static void set_step(cl_kernel k, cl_mem buf, cl_int add) {
  CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
  CHECK(clSetKernelArg(k, 1, sizeof add, &add));
}

static cl_int status_of(cl_event ev) {
  cl_int s;
  CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
  return s;
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx, ev_ctx;
  cl_command_queue q1, q2, qprof, qooo, ev_queue;
  cl_command_queue_properties props = 0;
  cl_program prog;
  cl_kernel step, sum2;
  static cl_int host[N], out[N];
  cl_mem buf, buf2, x, y, z;
  cl_event wrote, e1, copied, e2, marker, barrier_ev, prof_ev, a_ev, b_ev, c_ev;
  cl_command_type type;
  cl_ulong t_start = 0, t_end = 0;
  size_t global = N, local = 64;
  int tag1 = 100, tag2 = 10000, i, waited;

  app_open_output(argc, argv);
  dev = app_first_device(NULL);
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK_ERR(err);
  q1 = clCreateCommandQueue(ctx, dev, 0, &err);
  CHECK_ERR(err);
  q2 = clCreateCommandQueue(ctx, dev, 0, &err);
  CHECK_ERR(err);
  prog = app_build(ctx, dev, kSource, "");
  step = app_kernel(prog, "advance");
  sum2 = app_kernel(prog, "sum2");
  buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
  CHECK_ERR(err);
  buf2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
  CHECK_ERR(err);
  for (i = 0; i < N; ++i) host[i] = (cl_int)(app_rand() % 1000u);

  /* q2 waits on q1's launch, a marker on q1 waits on q2's launch. */
  CHECK(clEnqueueWriteBuffer(q1, buf, CL_FALSE, 0, sizeof host, host, 0, NULL, &wrote));
  set_step(step, buf, 1);
  CHECK(clEnqueueNDRangeKernel(q1, step, 1, NULL, &global, &local, 0, NULL, &e1));
  CHECK(clEnqueueCopyBuffer(q2, buf, buf2, 0, 0, sizeof host, 1, &e1, &copied));
  set_step(step, buf2, 5);
  CHECK(clEnqueueNDRangeKernel(q2, step, 1, NULL, &global, NULL, 0, NULL, &e2));
  CHECK(clSetEventCallback(e2, CL_COMPLETE, on_complete, &tag1));
  CHECK(clEnqueueMarkerWithWaitList(q1, 1, &e2, &marker));
  CHECK(clSetEventCallback(marker, CL_COMPLETE, on_complete, &tag2));
  CHECK(clFlush(q1));
  CHECK(clFlush(q2));
  CHECK(clWaitForEvents(1, &marker));
  app_print("e1_complete", status_of(e1) == CL_COMPLETE);
  app_print("e2_complete", status_of(e2) == CL_COMPLETE);
  CHECK(clEnqueueReadBuffer(q1, buf2, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("cross_queue_chain", out, sizeof out);
  for (waited = 0; callbacks_done < 2 && waited < 30000; ++waited) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  app_print("callbacks", callbacks_done);
  app_print("callback_status_sum", callback_status_sum);

  CHECK(clGetEventInfo(e1, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  app_print("e1_is_ndrange", type == CL_COMMAND_NDRANGE_KERNEL);
  CHECK(clGetEventInfo(marker, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  app_print("marker_is_marker", type == CL_COMMAND_MARKER);
  CHECK(clGetEventInfo(copied, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  app_print("copied_is_copy", type == CL_COMMAND_COPY_BUFFER);
  CHECK(clGetEventInfo(e2, CL_EVENT_COMMAND_QUEUE, sizeof ev_queue, &ev_queue, NULL));
  app_print("e2_queue_is_q2", ev_queue == q2);
  CHECK(clGetEventInfo(wrote, CL_EVENT_CONTEXT, sizeof ev_ctx, &ev_ctx, NULL));
  app_print("wrote_context", ev_ctx == ctx);
  CHECK(clGetEventInfo(wrote, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  app_print("wrote_is_write", type == CL_COMMAND_WRITE_BUFFER);

  /* A barrier on q2 that waits for a launch on q1. */
  clReleaseEvent(e1);
  set_step(step, buf, -3);
  CHECK(clEnqueueNDRangeKernel(q1, step, 1, NULL, &global, &local, 0, NULL, &e1));
  CHECK(clEnqueueBarrierWithWaitList(q2, 1, &e1, &barrier_ev));
  CHECK(clEnqueueCopyBuffer(q2, buf, buf2, 0, 0, sizeof host, 0, NULL, NULL));
  CHECK(clFinish(q2));
  CHECK(clEnqueueReadBuffer(q2, buf2, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("after_barrier", out, sizeof out);

  /* Profiling queue: times are ordered. */
  qprof = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  CHECK_ERR(err);
  set_step(step, buf, 7);
  CHECK(clEnqueueNDRangeKernel(qprof, step, 1, NULL, &global, &local, 0, NULL, &prof_ev));
  CHECK(clWaitForEvents(1, &prof_ev));
  CHECK(clGetEventProfilingInfo(prof_ev, CL_PROFILING_COMMAND_START, sizeof t_start, &t_start,
                                NULL));
  CHECK(clGetEventProfilingInfo(prof_ev, CL_PROFILING_COMMAND_END, sizeof t_end, &t_end, NULL));
  app_print("profile_ordered", t_end >= t_start && t_start > 0);
  CHECK(clEnqueueReadBuffer(qprof, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("profiled", out, sizeof out);

  /* Out-of-order queue (if the device has one): order only through events. */
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, NULL));
  qooo = clCreateCommandQueue(ctx, dev, props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  CHECK_ERR(err);
  x = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  CHECK_ERR(err);
  y = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  CHECK_ERR(err);
  z = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
  CHECK_ERR(err);
  set_step(step, x, 11);
  CHECK(clEnqueueNDRangeKernel(qooo, step, 1, NULL, &global, &local, 0, NULL, &a_ev));
  /* clEnqueueNDRangeKernel captures the arguments: resetting them is safe. */
  set_step(step, y, -13);
  CHECK(clEnqueueNDRangeKernel(qooo, step, 1, NULL, &global, &local, 0, NULL, &b_ev));
  CHECK(clSetKernelArg(sum2, 0, sizeof x, &x));
  CHECK(clSetKernelArg(sum2, 1, sizeof y, &y));
  CHECK(clSetKernelArg(sum2, 2, sizeof z, &z));
  {
    cl_event both[2];
    both[0] = a_ev;
    both[1] = b_ev;
    CHECK(clEnqueueNDRangeKernel(qooo, sum2, 1, NULL, &global, NULL, 2, both, &c_ev));
  }
  CHECK(clEnqueueReadBuffer(qooo, z, CL_TRUE, 0, sizeof out, out, 1, &c_ev, NULL));
  app_dump("out_of_order", out, sizeof out);

  /* Two queues write disjoint halves of one buffer at the same time (launch
   * offsets), without ordering between them; a read waits for both. */
  {
    cl_event halves[2];
    size_t half = N / 2, off_hi = N / 2;
    set_step(step, z, 1000);
    CHECK(clEnqueueNDRangeKernel(q1, step, 1, NULL, &half, &local, 0, NULL, &halves[0]));
    set_step(step, z, -1000);
    CHECK(clEnqueueNDRangeKernel(q2, step, 1, &off_hi, &half, &local, 0, NULL, &halves[1]));
    CHECK(clFlush(q1));
    CHECK(clFlush(q2));
    CHECK(clEnqueueReadBuffer(q1, z, CL_TRUE, 0, sizeof out, out, 2, halves, NULL));
    app_dump("disjoint_halves_two_queues", out, sizeof out);
    clReleaseEvent(halves[0]);
    clReleaseEvent(halves[1]);
  }

  CHECK(clFinish(q1));
  CHECK(clFinish(q2));
  CHECK(clFinish(qooo));
  clReleaseEvent(e1);
  clReleaseEvent(wrote);
  clReleaseEvent(copied);
  clReleaseEvent(e2);
  clReleaseEvent(marker);
  clReleaseEvent(barrier_ev);
  clReleaseEvent(prof_ev);
  clReleaseEvent(a_ev);
  clReleaseEvent(b_ev);
  clReleaseEvent(c_ev);
  clReleaseMemObject(buf);
  clReleaseMemObject(buf2);
  clReleaseMemObject(x);
  clReleaseMemObject(y);
  clReleaseMemObject(z);
  clReleaseKernel(step);
  clReleaseKernel(sum2);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q1);
  clReleaseCommandQueue(q2);
  clReleaseCommandQueue(qprof);
  clReleaseCommandQueue(qooo);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
