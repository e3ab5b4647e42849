/* shapes: NDRange shapes that are awkward to split.
 * Covers: a single work-group, 3 groups (fewer than 4 devices), 5 groups of
 * 256 work-items, tall and wide 2D ranges (2 x 1024 and 1024 x 2 items,
 * where one dimension has a single group), a 3D range whose only
 * multi-group dimension is z, a 2D range with an offset in y only,
 * clEnqueueTask, and every launch's get_num_groups/get_group_id recorded. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void record(__global uint4* out) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "  size_t w = get_global_size(0) + get_global_offset(0);\n"
    "  size_t h = get_global_size(1) + get_global_offset(1);\n"
    "  size_t i = (z * h + y) * w + x;\n"
    "  out[i] = (uint4)((uint)(get_group_id(0) + 16 * get_group_id(1) + 256 * get_group_id(2)),\n"
    "                   (uint)(get_num_groups(0) + 16 * get_num_groups(1) + 256 * get_num_groups(2)),\n"
    "                   (uint)(get_local_id(0) + 16 * get_local_id(1) + 256 * get_local_id(2)),\n"
    "                   (uint)i);\n"
    "}\n"
    "__kernel void task(__global int* v, int n) {\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < n; ++i) { s += v[i]; v[i] = s; }\n"
    "}\n";

enum { CAP = 4096 };

static cl_command_queue q;
static cl_kernel record;
static cl_mem out;
static cl_uint4 result[CAP];

static void run_shape(const char* name, cl_uint dims, const size_t* offset,
                      const size_t* global, const size_t* local) {
  cl_uint fill = 0xffffffffu;
  size_t total = 1, d;
  for (d = 0; d < dims; ++d) total *= global[d] + (offset ? offset[d] : 0);
  if (total > CAP) {
    fprintf(stderr, "shape %s too large\n", name);
    exit(1);
  }
  CHECK(clEnqueueFillBuffer(q, out, &fill, sizeof fill, 0, sizeof result, 0, NULL, NULL));
  CHECK(clEnqueueNDRangeKernel(q, record, dims, offset, global, local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, total * sizeof(cl_uint4), result, 0, NULL, NULL));
  app_dump(name, result, total * sizeof(cl_uint4));
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_program prog;
  cl_kernel task;
  cl_mem bv;
  static cl_int v[1000];
  cl_int n = 1000;
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, NULL);
  record = app_kernel(prog, "record");
  task = app_kernel(prog, "task");
  out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof result, NULL, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(record, 0, sizeof out, &out));

  {
    size_t g[1] = {64}, l[1] = {64};
    run_shape("one_group", 1, NULL, g, l);
  }
  {
    size_t g[1] = {96}, l[1] = {32};
    run_shape("three_groups", 1, NULL, g, l);
  }
  {
    size_t g[1] = {1280}, l[1] = {256};
    run_shape("five_big_groups", 1, NULL, g, l);
  }
  {
    size_t g[2] = {2, 1024}, l[2] = {2, 64};
    run_shape("tall", 2, NULL, g, l);
  }
  {
    size_t g[2] = {1024, 2}, l[2] = {64, 2};
    run_shape("wide", 2, NULL, g, l);
  }
  {
    size_t g[3] = {4, 4, 64}, l[3] = {4, 4, 4};
    run_shape("deep_z", 3, NULL, g, l);
  }
  {
    size_t o[2] = {0, 10}, g[2] = {32, 40}, l[2] = {8, 8};
    run_shape("offset_y", 2, o, g, l);
  }
  {
    size_t g[1] = {1};
    run_shape("single_item", 1, NULL, g, NULL);
  }

  for (i = 0; i < n; ++i) v[i] = i % 13 - 6;
  bv = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof v, v, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(task, 0, sizeof bv, &bv));
  CHECK(clSetKernelArg(task, 1, sizeof n, &n));
  CHECK(clEnqueueTask(q, task, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bv, CL_TRUE, 0, sizeof v, v, 0, NULL, NULL));
  app_dump("task_prefix_sum", v, sizeof v);

  clReleaseMemObject(out);
  clReleaseMemObject(bv);
  clReleaseKernel(record);
  clReleaseKernel(task);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
