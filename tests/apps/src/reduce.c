/* reduce: per-group reduction in local memory with barriers.
 * Covers: given local size, a __local argument (clSetKernelArg with NULL),
 * a statically sized __local array, barriers, an ALLOC_HOST_PTR result
 * buffer read through map/unmap, a second pass reducing the partials. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void group_sum(__global const uint* in, __global uint* partial,\n"
    "                        __local uint* scratch) {\n"
    "  size_t lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  scratch[lid] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = lsz / 2; s > 0; s /= 2) {\n"
    "    if (lid < s) scratch[lid] += scratch[lid + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) partial[get_group_id(0)] = scratch[0];\n"
    "}\n"
    "#define TILE 128\n"
    "__kernel __attribute__((reqd_work_group_size(TILE, 1, 1)))\n"
    "void group_minmax(__global const int* in, __global int2* out) {\n"
    "  __local int lo[TILE], hi[TILE];\n"
    "  size_t lid = get_local_id(0);\n"
    "  lo[lid] = hi[lid] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = TILE / 2; s > 0; s /= 2) {\n"
    "    if (lid < s) {\n"
    "      lo[lid] = min(lo[lid], lo[lid + s]);\n"
    "      hi[lid] = max(hi[lid], hi[lid + s]);\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) out[get_group_id(0)] = (int2)(lo[0], hi[0]);\n"
    "}\n";

enum { N = 1 << 16, LOCAL = 64, GROUPS = N / LOCAL, MM_GROUPS = N / 128 };

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel sum, minmax;
  static cl_uint data[N];
  static cl_int signed_data[N];
  cl_uint* partial;
  cl_int* mm;
  cl_mem bin, bpartial, bpartial2, bsigned, bmm;
  size_t global = N, local = LOCAL, global2 = GROUPS, local2 = LOCAL, mm_local = 128;
  unsigned long long total = 0;
  int i;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, "");
  sum = app_kernel(prog, "group_sum");
  minmax = app_kernel(prog, "group_minmax");

  for (i = 0; i < N; ++i) {
    data[i] = app_rand() % 1000u;
    signed_data[i] = (cl_int)(app_rand() % 2000001u) - 1000000;
  }
  bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  CHECK_ERR(err);
  bpartial = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                            GROUPS * sizeof(cl_uint), NULL, &err);
  CHECK_ERR(err);
  bpartial2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                             (GROUPS / LOCAL) * sizeof(cl_uint), NULL, &err);
  CHECK_ERR(err);

  /* Pass 1: N values -> GROUPS partial sums. */
  CHECK(clSetKernelArg(sum, 0, sizeof bin, &bin));
  CHECK(clSetKernelArg(sum, 1, sizeof bpartial, &bpartial));
  CHECK(clSetKernelArg(sum, 2, LOCAL * sizeof(cl_uint), NULL));
  CHECK(clEnqueueNDRangeKernel(q, sum, 1, NULL, &global, &local, 0, NULL, NULL));
  partial = (cl_uint*)clEnqueueMapBuffer(q, bpartial, CL_TRUE, CL_MAP_READ, 0,
                                         GROUPS * sizeof(cl_uint), 0, NULL, NULL, &err);
  CHECK_ERR(err);
  app_dump("partial", partial, GROUPS * sizeof(cl_uint));
  CHECK(clEnqueueUnmapMemObject(q, bpartial, partial, 0, NULL, NULL));

  /* Pass 2: GROUPS partials -> GROUPS / LOCAL, same kernel, new arguments. */
  CHECK(clSetKernelArg(sum, 0, sizeof bpartial, &bpartial));
  CHECK(clSetKernelArg(sum, 1, sizeof bpartial2, &bpartial2));
  CHECK(clEnqueueNDRangeKernel(q, sum, 1, NULL, &global2, &local2, 0, NULL, NULL));
  partial = (cl_uint*)clEnqueueMapBuffer(q, bpartial2, CL_TRUE, CL_MAP_READ, 0,
                                         (GROUPS / LOCAL) * sizeof(cl_uint), 0, NULL, NULL, &err);
  CHECK_ERR(err);
  for (i = 0; i < GROUPS / LOCAL; ++i) total += partial[i];
  app_dump("partial2", partial, (GROUPS / LOCAL) * sizeof(cl_uint));
  CHECK(clEnqueueUnmapMemObject(q, bpartial2, partial, 0, NULL, NULL));
  app_print("total", (long long)total);

  /* A non-blocking map of part of the partials, completed by its event. */
  {
    cl_event mapped;
    partial = (cl_uint*)clEnqueueMapBuffer(q, bpartial, CL_FALSE, CL_MAP_READ,
                                           100 * sizeof(cl_uint), 200 * sizeof(cl_uint), 0, NULL,
                                           &mapped, &err);
    CHECK_ERR(err);
    CHECK(clWaitForEvents(1, &mapped));
    app_dump("partial_100_300", partial, 200 * sizeof(cl_uint));
    CHECK(clEnqueueUnmapMemObject(q, bpartial, partial, 0, NULL, NULL));
    clReleaseEvent(mapped);
  }

  /* Min/max per group with a required work-group size. */
  bsigned = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof signed_data,
                           signed_data, &err);
  CHECK_ERR(err);
  bmm = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, MM_GROUPS * sizeof(cl_int2), NULL, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(minmax, 0, sizeof bsigned, &bsigned));
  CHECK(clSetKernelArg(minmax, 1, sizeof bmm, &bmm));
  CHECK(clEnqueueNDRangeKernel(q, minmax, 1, NULL, &global, &mm_local, 0, NULL, NULL));
  mm = (cl_int*)malloc(MM_GROUPS * sizeof(cl_int2));
  CHECK(clEnqueueReadBuffer(q, bmm, CL_TRUE, 0, MM_GROUPS * sizeof(cl_int2), mm, 0, NULL, NULL));
  app_dump("minmax", mm, MM_GROUPS * sizeof(cl_int2));
  free(mm);

  clReleaseMemObject(bin);
  clReleaseMemObject(bpartial);
  clReleaseMemObject(bpartial2);
  clReleaseMemObject(bsigned);
  clReleaseMemObject(bmm);
  clReleaseKernel(sum);
  clReleaseKernel(minmax);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
