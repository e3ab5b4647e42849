/* headers: what a build reads from headers, when the headers are gone by the
 * time the kernels run (OpenCL 1.2).
 * Covers: clCompileProgram with several embedded headers (one including
 * another, a name with a directory part, #pragma once and include guards),
 * clCompileProgram with -I of a directory the app then deletes before
 * clLinkProgram, clBuildProgram with -I of a directory deleted before the
 * first launch, two objects including one header that defines a struct
 * (guarded) linked together, an #include named by a macro (not captured:
 * the app's own binary runs whole). Each kernel's output is dumped. */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <sys/stat.h>
#include <unistd.h>

#include "app_common.h"

static const char* kDefs =
    "#ifndef DEFS_H\n"
    "#define DEFS_H\n"
    "typedef struct { int scale; int bias; } params_t;\n"
    "#define PARAMS ((params_t){3, -4})\n"
    "#endif\n";
static const char* kMath =
    "#pragma once\n"
    "#include \"defs.h\"\n"
    "static int affine(int x) { params_t p = PARAMS; return x * p.scale + p.bias; }\n";
static const char* kEmbeddedKernel =
    "#include \"defs.h\"\n"
    "#include \"ops/math.h\"\n"
    "#include \"ops/math.h\"\n"
    "int helper(int x);\n"
    "__kernel void run_embedded(__global const int* in, __global int* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = affine(in[i]) + helper(in[i]);\n"
    "}\n";
static const char* kEmbeddedHelper =
    "#include \"defs.h\"\n"
    "int helper(int x) { params_t p = PARAMS; return x / p.scale; }\n";

static const char* kDiskKernel =
    "#include \"disk_scale.h\"\n"
    "__kernel void run_disk(__global const int* in, __global int* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * DISK_SCALE + (int)get_group_id(0);\n"
    "}\n";

/* An include named by a macro: libsplit cannot capture it (it does not
   preprocess), so after the directory is gone only the app's own build
   remains to run the kernel (whole). */
static const char* kMacroIncludeKernel =
    "#define SCALE_HEADER \"macro_scale.h\"\n"
    "#include SCALE_HEADER\n"
    "__kernel void run_macro(__global const int* in, __global int* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * MACRO_SCALE - (int)get_group_id(0);\n"
    "}\n";

enum { N = 2048 };

static void write_header(const char* dir, const char* name, const char* text) {
  char path[512];
  FILE* f;
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(2);
  }
  fputs(text, f);
  fclose(f);
}

static void remove_header(const char* dir, const char* name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  unlink(path);
  rmdir(dir);
}

/* A relative directory name of this process: PoCL's kernel cache is shared
   between processes, and concurrent runs compiling one source with one -I
   option through different directories make each other fail. */
static void unique_dir(char* out, const char* base) {
  snprintf(out, 64, "%s_%ld", base, (long)getpid());
}

static cl_program source(cl_context ctx, const char* text) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &text, NULL, &err);
  CHECK_ERR(err);
  return p;
}

static void run(cl_context ctx, cl_command_queue q, cl_program prog, const char* kernel, cl_mem in,
                const char* name) {
  static cl_int out[N];
  cl_int err;
  size_t global = N, local = 64;
  cl_kernel k = clCreateKernel(prog, kernel, &err);
  cl_mem bout;
  CHECK_ERR(err);
  bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
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
  char dir[64], options[128];
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  for (i = 0; i < N; ++i) in[i] = (cl_int)(app_rand() % 3000u) - 1500;
  bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  CHECK_ERR(err);

  { /* Several embedded headers; two objects include the same struct. */
    cl_program headers[2], objects[2], exe;
    const char* names[2] = {"defs.h", "ops/math.h"};
    headers[0] = source(ctx, kDefs);
    headers[1] = source(ctx, kMath);
    objects[0] = source(ctx, kEmbeddedKernel);
    objects[1] = source(ctx, kEmbeddedHelper);
    CHECK(clCompileProgram(objects[0], 1, &dev, NULL, 2, headers, names, NULL, NULL));
    CHECK(clCompileProgram(objects[1], 1, &dev, NULL, 1, headers, names, NULL, NULL));
    /* The header programs are gone before the link. */
    clReleaseProgram(headers[0]);
    clReleaseProgram(headers[1]);
    exe = clLinkProgram(ctx, 1, &dev, NULL, 2, objects, NULL, NULL, &err);
    CHECK_ERR(err);
    run(ctx, q, exe, "run_embedded", bin, "embedded_headers");
    clReleaseProgram(exe);
    clReleaseProgram(objects[0]);
    clReleaseProgram(objects[1]);
  }
  { /* -I directory deleted between compile and link. */
    cl_program obj = source(ctx, kDiskKernel), exe;
    unique_dir(dir, "inc_compile");
    snprintf(options, sizeof options, "-I %s", dir);
    write_header(dir, "disk_scale.h", "#define DISK_SCALE 7\n");
    CHECK(clCompileProgram(obj, 1, &dev, options, 0, NULL, NULL, NULL, NULL));
    remove_header(dir, "disk_scale.h");
    exe = clLinkProgram(ctx, 1, &dev, NULL, 1, &obj, NULL, NULL, &err);
    CHECK_ERR(err);
    run(ctx, q, exe, "run_disk", bin, "include_dir_deleted_before_link");
    clReleaseProgram(exe);
    clReleaseProgram(obj);
  }
  { /* -I directory deleted between build and the first launch. */
    cl_program prog = source(ctx, kDiskKernel);
    unique_dir(dir, "inc_build");
    snprintf(options, sizeof options, "-I%s", dir);
    write_header(dir, "disk_scale.h", "#define DISK_SCALE -11\n");
    CHECK(clBuildProgram(prog, 1, &dev, options, NULL, NULL));
    remove_header(dir, "disk_scale.h");
    run(ctx, q, prog, "run_disk", bin, "include_dir_deleted_before_launch");
    clReleaseProgram(prog);
  }
  { /* Include by macro, directory deleted between compile and link. */
    cl_program obj = source(ctx, kMacroIncludeKernel), exe;
    unique_dir(dir, "inc_macro");
    snprintf(options, sizeof options, "-I %s", dir);
    write_header(dir, "macro_scale.h", "#define MACRO_SCALE 5\n");
    CHECK(clCompileProgram(obj, 1, &dev, options, 0, NULL, NULL, NULL, NULL));
    remove_header(dir, "macro_scale.h");
    exe = clLinkProgram(ctx, 1, &dev, NULL, 1, &obj, NULL, NULL, &err);
    CHECK_ERR(err);
    run(ctx, q, exe, "run_macro", bin, "macro_include_dir_deleted");
    clReleaseProgram(exe);
    clReleaseProgram(obj);
  }
  clReleaseMemObject(bin);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
