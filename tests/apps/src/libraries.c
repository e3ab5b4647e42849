/* libraries: separate compilation with libraries (OpenCL 1.2).
 * Covers: clLinkProgram with -create-library (a library of two objects, a
 * library of one), an executable linked from a kernel object and two
 * libraries, a library holding the kernel itself linked with a plain object,
 * a library made of another library, compile options per object (-D,
 * -cl-std), empty and null link options, two objects with static helpers
 * of one name, build status/options and notify callbacks of compile and
 * link. Every
 * kernel's output is dumped: a kernel that silently does not run leaves
 * zeros. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kTwice = "int twice(int x) { return 2 * x + A_OFF; }\n";
static const char* kThrice = "int thrice(int x) { return 3 * x - 1; }\n";
/* Two objects with a static helper of one name (fine when linked, a
   redefinition if pasted into one source). */
static const char* kStaticTwice =
    "static int pick(int x) { return x + 1; }\n"
    "int twice(int x) { return 2 * pick(x) + A_OFF; }\n";
static const char* kStaticThrice =
    "static int pick(int x) { return x - 1; }\n"
    "int thrice(int x) { return 3 * pick(x); }\n";
static const char* kSquare = "int square(int x) { return x * x; }\n";
static const char* kKernel =
    "int twice(int x);\n"
    "int thrice(int x);\n"
    "int square(int x);\n"
    "__kernel void apply(__global const int* in, __global int* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = twice(in[i]) + thrice(in[i]) - square(in[i] & 15) + (int)get_group_id(0);\n"
    "}\n";

enum { N = 2048 };

static cl_program compiled(cl_context ctx, cl_device_id dev, const char* src, const char* options) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CHECK_ERR(err);
  CHECK(clCompileProgram(p, 1, &dev, options, 0, NULL, NULL, NULL, NULL));
  return p;
}

static cl_program linked(cl_context ctx, cl_device_id dev, const char* options, cl_uint n,
                         const cl_program* inputs) {
  cl_int err;
  cl_program p = clLinkProgram(ctx, 1, &dev, options, n, inputs, NULL, NULL, &err);
  CHECK_ERR(err);
  return p;
}

static cl_program g_notified = NULL;
static void CL_CALLBACK on_done(cl_program p, void* user) {
  g_notified = p;
  *(int*)user += 1;
}

/* Build status and options of a compiled or linked program (as the app's
   own driver reports them). */
static void print_build_info(cl_program p, cl_device_id dev, const char* name) {
  cl_build_status status;
  char options[256] = {0};
  CHECK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
  CHECK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_OPTIONS, sizeof options - 1, options, NULL));
  fprintf(app_out, "%s status = %d options = \"%s\"\n", name, (int)status, options);
}

static void run(cl_context ctx, cl_command_queue q, cl_program prog, cl_mem in, const char* name) {
  static cl_int out[N];
  cl_int err;
  size_t global = N, local = 64;
  cl_kernel k = clCreateKernel(prog, "apply", &err);
  cl_mem bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(k, 0, sizeof in, &in));
  CHECK(clSetKernelArg(k, 1, sizeof bout, &bout));
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump(name, out, sizeof out);
  clReleaseMemObject(bout);
  clReleaseKernel(k);
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  static cl_int in[N];
  cl_mem bin;
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  for (i = 0; i < N; ++i) in[i] = (cl_int)(app_rand() % 2000u) - 1000;
  bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  CHECK_ERR(err);

  {
    cl_program twice = compiled(ctx, dev, kTwice, "-DA_OFF=5");
    cl_program thrice = compiled(ctx, dev, kThrice, "");
    cl_program square = compiled(ctx, dev, kSquare, "-cl-std=CL1.2");
    cl_program kernel = compiled(ctx, dev, kKernel, "");
    cl_program pair[2], inputs[3], lib_pair, lib_square, lib_nested, lib_kernel, exe;

    /* Executable = kernel object + two libraries. */
    pair[0] = twice;
    pair[1] = thrice;
    lib_pair = linked(ctx, dev, "-create-library", 2, pair);
    lib_square = linked(ctx, dev, "-create-library", 1, &square);
    inputs[0] = kernel;
    inputs[1] = lib_pair;
    inputs[2] = lib_square;
    exe = linked(ctx, dev, NULL, 3, inputs);
    run(ctx, q, exe, bin, "two_libraries");
    clReleaseProgram(exe);

    /* A library holding the kernel, linked with a plain object. */
    inputs[0] = kernel;
    inputs[1] = twice;
    inputs[2] = thrice;
    lib_kernel = linked(ctx, dev, "-create-library", 3, inputs);
    inputs[0] = lib_kernel;
    inputs[1] = square;
    exe = linked(ctx, dev, "", 2, inputs);
    run(ctx, q, exe, bin, "kernel_in_library");
    clReleaseProgram(exe);

    /* A library made of a library and an object. */
    inputs[0] = lib_pair;
    inputs[1] = square;
    lib_nested = linked(ctx, dev, "-create-library", 2, inputs);
    inputs[0] = lib_nested;
    inputs[1] = kernel;
    exe = linked(ctx, dev, "", 2, inputs);
    run(ctx, q, exe, bin, "nested_library");
    clReleaseProgram(exe);

    { /* Status, options and notify callbacks of compile and link. */
      const char* src = kTwice;
      int calls = 0;
      cl_program obj = clCreateProgramWithSource(ctx, 1, &src, NULL, &err), four[4];
      CHECK_ERR(err);
      CHECK(clCompileProgram(obj, 1, &dev, "-DA_OFF=4", 0, NULL, NULL, on_done, &calls));
      app_print("compile_notified_with_program", g_notified == obj);
      print_build_info(obj, dev, "compiled");
      four[0] = kernel;
      four[1] = obj;
      four[2] = thrice;
      four[3] = square;
      exe = clLinkProgram(ctx, 1, &dev, "", 4, four, on_done, &calls, &err);
      CHECK_ERR(err);
      app_print("link_notified_with_program", g_notified == exe);
      app_print("notify_calls", calls);
      print_build_info(exe, dev, "linked");
      run(ctx, q, exe, bin, "linked_with_notify");
      clReleaseProgram(exe);
      clReleaseProgram(obj);
    }
    { /* Static helpers of one name in two objects. */
      cl_program a = compiled(ctx, dev, kStaticTwice, "-DA_OFF=2");
      cl_program b = compiled(ctx, dev, kStaticThrice, "");
      cl_program four[4];
      four[0] = kernel;
      four[1] = a;
      four[2] = b;
      four[3] = square;
      exe = linked(ctx, dev, NULL, 4, four);
      run(ctx, q, exe, bin, "same_static_names");
      clReleaseProgram(exe);
      clReleaseProgram(a);
      clReleaseProgram(b);
    }

    clReleaseProgram(lib_nested);
    clReleaseProgram(lib_kernel);
    clReleaseProgram(lib_pair);
    clReleaseProgram(lib_square);
    clReleaseProgram(twice);
    clReleaseProgram(thrice);
    clReleaseProgram(square);
    clReleaseProgram(kernel);
  }
  clReleaseMemObject(bin);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
