/* lifetimes: object lifetimes, callbacks and argument capture as the
 * OpenCL 3.0 API specifies them (the host-side behaviour conformance tests
 * check), each printed so that native and shim runs compare.
 * Covers: a buffer's destructor callback fires at its release although a
 * kernel argument still names it; several destructor callbacks run in
 * reverse order; a buffer used by a queued (gated) launch is destroyed only
 * after that launch completes; arguments changed after an enqueue do not
 * affect it; clCloneKernel copies the arguments, and later changes to either
 * kernel stay apart; context destructor callbacks (reverse order, after the
 * last release); clSetProgramReleaseCallback, clGetPipeInfo on a buffer and
 * non-uniform launches answer the native codes; profiling timestamps are
 * ordered. Waits for callbacks are bounded (a missing callback prints 0). */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS
#include <CL/cl.h>

#include <time.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void fill(__global int* out, int value) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = value * 1000 + (int)i;\n"
    "}\n";

enum { N = 256 };

static volatile int g_order[8];
static volatile int g_count = 0;

static void CL_CALLBACK on_mem_destroyed(cl_mem m, void* user) {
  (void)m;
  if (g_count < 8) g_order[g_count] = (int)(size_t)user;
  g_count = g_count + 1;
}

static void CL_CALLBACK on_context_destroyed(cl_context c, void* user) {
  (void)c;
  if (g_count < 8) g_order[g_count] = (int)(size_t)user;
  g_count = g_count + 1;
}

static void CL_CALLBACK on_program_released(cl_program p, void* user) {
  (void)p;
  (void)user;
}

/* Waits (at most 5 s) until `count` callbacks ran. */
static int wait_for_callbacks(int count) {
  int i;
  for (i = 0; i < 5000 && g_count < count; ++i) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  return g_count >= count;
}

static void print_order(const char* name) {
  char line[64] = "";
  int i;
  for (i = 0; i < g_count && i < 8; ++i) sprintf(line + strlen(line), "%d", g_order[i]);
  fprintf(app_out, "%s = %s\n", name, line);
}

static cl_mem new_buffer(cl_context ctx) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL, &err);
  CHECK_ERR(err);
  return m;
}

static void launch(cl_command_queue q, cl_kernel k, cl_uint n, const cl_event* waits, cl_event* ev) {
  size_t global = N, local = 16;
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, n, waits, ev));
}

static void set_args(cl_kernel k, cl_mem out, cl_int value) {
  CHECK(clSetKernelArg(k, 0, sizeof out, &out));
  CHECK(clSetKernelArg(k, 1, sizeof value, &value));
}

static void dump_buffer(cl_command_queue q, cl_mem m, const char* name) {
  static cl_int host[N];
  CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
  app_dump(name, host, sizeof host);
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel k;

  app_open_output(argc, argv);
  dev = app_first_device(NULL);
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK_ERR(err);
  q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  CHECK_ERR(err);
  prog = app_build(ctx, dev, kSource, "");
  k = app_kernel(prog, "fill");

  { /* A kernel argument does not keep its buffer alive. */
    cl_mem m = new_buffer(ctx);
    g_count = 0;
    CHECK(clSetMemObjectDestructorCallback(m, on_mem_destroyed, (void*)1));
    CHECK(clSetMemObjectDestructorCallback(m, on_mem_destroyed, (void*)2));
    CHECK(clSetMemObjectDestructorCallback(m, on_mem_destroyed, (void*)3));
    set_args(k, m, 1);
    CHECK(clReleaseMemObject(m));
    app_print("arg_buffer_destroyed", wait_for_callbacks(3));
    print_order("destructor_order");
  }
  { /* A queued launch keeps its buffer until it completes; arguments changed
       after the enqueue do not change it. */
    cl_event gate = clCreateUserEvent(ctx, &err), done;
    cl_mem first = new_buffer(ctx), second = new_buffer(ctx);
    CHECK_ERR(err);
    g_count = 0;
    CHECK(clSetMemObjectDestructorCallback(first, on_mem_destroyed, (void*)4));
    set_args(k, first, 2);
    launch(q, k, 1, &gate, &done);
    set_args(k, second, 3);
    CHECK(clReleaseMemObject(first));
    app_print("destroyed_while_queued", g_count);
    launch(q, k, 0, NULL, NULL);
    CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
    CHECK(clWaitForEvents(1, &done));
    CHECK(clFinish(q));
    app_print("destroyed_after_completion", wait_for_callbacks(1));
    dump_buffer(q, second, "second_after_arg_change");
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseMemObject(second);
  }
  { /* clCloneKernel copies the arguments; the two kernels then differ. */
    cl_mem a = new_buffer(ctx), b = new_buffer(ctx);
    cl_kernel clone;
    cl_int value = 9;
    set_args(k, a, 5);
    clone = clCloneKernel(k, &err);
    CHECK_ERR(err);
    CHECK(clSetKernelArg(k, 1, sizeof value, &value));
    launch(q, clone, 0, NULL, NULL);
    dump_buffer(q, a, "clone_with_copied_args");
    set_args(clone, b, 6);
    launch(q, k, 0, NULL, NULL);
    launch(q, clone, 0, NULL, NULL);
    dump_buffer(q, a, "original_after_clone");
    dump_buffer(q, b, "clone_after_own_args");
    clReleaseKernel(clone);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
  }
  { /* Codes of calls a driver may refuse. */
    cl_mem m = new_buffer(ctx);
    cl_uint packet = 0;
    cl_bool ctors = CL_TRUE;
    size_t global = 10, local = 4;
    const char* options[3] = {"", "-cl-std=CL3.0", "-cl-std=CL3.0 -cl-uniform-work-group-size"};
    int o;
    app_print("release_callback", clSetProgramReleaseCallback(prog, on_program_released, NULL));
    CHECK(clGetProgramInfo(prog, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, sizeof ctors, &ctors, NULL));
    app_print("global_ctors_present", ctors);
    app_print("pipe_info_on_buffer", clGetPipeInfo(m, CL_PIPE_PACKET_SIZE, sizeof packet, &packet, NULL));
    for (o = 0; o < 3; ++o) {
      cl_program p;
      cl_kernel nk;
      cl_int build;
      const char* src = kSource;
      p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
      CHECK_ERR(err);
      build = clBuildProgram(p, 1, &dev, options[o], NULL, NULL);
      app_print("non_uniform_build", build);
      if (build == CL_SUCCESS) {
        nk = app_kernel(p, "fill");
        set_args(nk, m, 4);
        app_print("non_uniform_launch", clEnqueueNDRangeKernel(q, nk, 1, NULL, &global, &local, 0, NULL, NULL));
        clReleaseKernel(nk);
      }
      clReleaseProgram(p);
    }
    CHECK(clFinish(q));
    clReleaseMemObject(m);
  }
  { /* Profiling timestamps: queued <= submit <= start <= end. */
    cl_mem m = new_buffer(ctx);
    cl_event ev;
    cl_ulong t[4];
    int i, ordered = 1;
    set_args(k, m, 7);
    launch(q, k, 0, NULL, &ev);
    CHECK(clWaitForEvents(1, &ev));
    for (i = 0; i < 4; ++i)
      CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED + i, sizeof t[i], &t[i], NULL));
    for (i = 0; i < 3; ++i) ordered &= t[i] <= t[i + 1];
    app_print("profiling_ordered", ordered);
    clReleaseEvent(ev);
    clReleaseMemObject(m);
  }

  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  g_count = 0;
  CHECK(clSetContextDestructorCallback(ctx, on_context_destroyed, (void*)5));
  CHECK(clSetContextDestructorCallback(ctx, on_context_destroyed, (void*)6));
  CHECK(clReleaseContext(ctx));
  app_print("context_destroyed", wait_for_callbacks(2));
  print_order("context_destructor_order");
  app_close_output();
  return 0;
}
