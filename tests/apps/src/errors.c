/* errors: error transparency. A series of invalid calls, each printing the
 * cl_int it returned, then introspection queries whose answers a shim must
 * not change (number of kernel arguments, program source, kernel names...),
 * then one valid launch to show the runtime still works. The output with and
 * without the shim must be identical. Only NULL handles are passed as bad
 * handles (garbage pointers would crash the ICD loader itself). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void add(__global int* v, int k, __local int* scratch) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0);\n"
    "  scratch[l] = v[i];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  v[i] = scratch[l] + k;\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(16, 1, 1)))\n"
    "void fixed(__global int* v) { v[get_global_id(0)] *= 2; }\n";

static const char* kBroken =
    "__kernel void broken(__global int* v) { v[0] = undeclared_thing; }\n";

#define REPORT(name, expr) app_print(name, (long long)(expr))

int main(int argc, char** argv) {
  cl_int err;
  cl_platform_id platform;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog, broken, unbuilt;
  cl_kernel add, fixed, k;
  cl_mem buf, sub;
  cl_event ev, user;
  cl_int host[256];
  cl_uint num;
  size_t size, global = 256, local = 16, bad_local = 24;
  cl_ulong max_alloc = 0, t;
  cl_buffer_region region;
  char text[4096];
  int value = 5, i, zero = 0;
  void* mapped;

  app_open_output(argc, argv);
  dev = app_first_device(&platform);
  for (i = 0; i < 256; ++i) host[i] = i;

  REPORT("get_platforms_zero", clGetPlatformIDs(0, NULL, NULL));
  REPORT("get_devices_zero_entries", clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, &dev, NULL));
  REPORT("get_devices_bad_type", clGetDeviceIDs(platform, 0, 1, &dev, NULL));
  REPORT("device_info_small", clGetDeviceInfo(dev, CL_DEVICE_NAME, 1, text, NULL));
  REPORT("device_info_bad_param", clGetDeviceInfo(dev, 0x7fff, sizeof text, text, NULL));

  ctx = clCreateContext(NULL, 0, &dev, NULL, NULL, &err);
  REPORT("context_zero_devices", err);
  ctx = clCreateContext(NULL, 1, NULL, NULL, NULL, &err);
  REPORT("context_null_devices", err);
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK_ERR(err);
  CHECK(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof num, &num, NULL));
  REPORT("context_num_devices", num);

  q = clCreateCommandQueue(NULL, dev, 0, &err);
  REPORT("queue_null_context", err);
  q = clCreateCommandQueue(ctx, dev, (cl_command_queue_properties)1 << 20, &err);
  REPORT("queue_bad_properties", err);
  q = clCreateCommandQueue(ctx, dev, 0, &err);
  CHECK_ERR(err);

  /* Buffers. */
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
  buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 0, NULL, &err);
  REPORT("buffer_size_zero", err);
  buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)max_alloc + 1, NULL, &err);
  REPORT("buffer_too_large", err);
  buf = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL, &err);
  REPORT("buffer_bad_flags", err);
  buf = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 64, NULL, &err);
  REPORT("buffer_use_host_ptr_null", err);
  buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, host, &err);
  REPORT("buffer_ptr_without_flag", err);
  buf = clCreateBuffer(NULL, CL_MEM_READ_WRITE, 64, NULL, &err);
  REPORT("buffer_null_context", err);
  buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  CHECK_ERR(err);
  CHECK(clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL));
  REPORT("buffer_size", size);

  REPORT("read_out_of_range", clEnqueueReadBuffer(q, buf, CL_TRUE, 1000, 100, text, 0, NULL, NULL));
  REPORT("read_too_big", clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host + 4, text, 0, NULL,
                                             NULL));
  REPORT("read_null_ptr", clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, NULL, 0, NULL, NULL));
  REPORT("read_null_buffer", clEnqueueReadBuffer(q, NULL, CL_TRUE, 0, 16, text, 0, NULL, NULL));
  REPORT("read_null_queue", clEnqueueReadBuffer(NULL, buf, CL_TRUE, 0, 16, text, 0, NULL, NULL));
  REPORT("read_bad_wait_list", clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 16, text, 1, NULL, NULL));
  REPORT("write_out_of_range", clEnqueueWriteBuffer(q, buf, CL_TRUE, 1020, 8, host, 0, NULL,
                                                    NULL));
  REPORT("copy_overlap", clEnqueueCopyBuffer(q, buf, buf, 0, 16, 64, 0, NULL, NULL));
  REPORT("copy_out_of_range", clEnqueueCopyBuffer(q, buf, buf, 0, 1000, 64, 0, NULL, NULL));
  REPORT("fill_bad_pattern", clEnqueueFillBuffer(q, buf, &value, 3, 0, 64, 0, NULL, NULL));
  REPORT("fill_unaligned", clEnqueueFillBuffer(q, buf, &value, 4, 2, 64, 0, NULL, NULL));
  REPORT("unmap_not_mapped", clEnqueueUnmapMemObject(q, buf, host, 0, NULL, NULL));
  mapped = clEnqueueMapBuffer(q, buf, CL_TRUE, CL_MAP_READ, 1000, 100, 0, NULL, NULL, &err);
  REPORT("map_out_of_range", err);
  REPORT("map_out_of_range_null", mapped == NULL);
  region.origin = 1000;
  region.size = 100;
  sub = clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  REPORT("sub_buffer_out_of_range", err);
  region.origin = 4;
  region.size = 16;
  sub = clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  REPORT("sub_buffer_misaligned", err);
  if (sub) clReleaseMemObject(sub);
  REPORT("release_null_buffer", clReleaseMemObject(NULL));

  /* Programs and kernels. */
  unbuilt = clCreateProgramWithSource(ctx, 0, &kSource, NULL, &err);
  REPORT("program_zero_strings", err);
  unbuilt = clCreateProgramWithSource(ctx, 1, &kSource, NULL, &err);
  CHECK_ERR(err);
  k = clCreateKernel(unbuilt, "add", &err);
  REPORT("kernel_from_unbuilt", err);
  if (k) clReleaseKernel(k);
  broken = clCreateProgramWithSource(ctx, 1, &kBroken, NULL, &err);
  CHECK_ERR(err);
  REPORT("build_broken", clBuildProgram(broken, 1, &dev, "", NULL, NULL));
  {
    cl_build_status status;
    CHECK(clGetProgramBuildInfo(broken, dev, CL_PROGRAM_BUILD_STATUS, sizeof status, &status,
                                NULL));
    REPORT("build_broken_status", status);
    CHECK(clGetProgramBuildInfo(broken, dev, CL_PROGRAM_BUILD_LOG, sizeof text, text, NULL));
    REPORT("build_log_mentions_identifier", strstr(text, "undeclared_thing") != NULL);
  }
  k = clCreateKernel(broken, "broken", &err);
  REPORT("kernel_from_broken", err);
  if (k) clReleaseKernel(k);
  REPORT("build_bad_option", clBuildProgram(unbuilt, 1, &dev, "-fno-such-option-here", NULL,
                                            NULL));
  prog = clCreateProgramWithSource(ctx, 1, &kSource, NULL, &err);
  CHECK_ERR(err);
  CHECK(clBuildProgram(prog, 1, &dev, "-cl-kernel-arg-info", NULL, NULL));
  k = clCreateKernel(prog, "no_such_kernel", &err);
  REPORT("kernel_bad_name", err);
  if (k) clReleaseKernel(k);
  k = clCreateKernel(prog, NULL, &err);
  REPORT("kernel_null_name", err);
  if (k) clReleaseKernel(k);
  add = app_kernel(prog, "add");
  fixed = app_kernel(prog, "fixed");

  /* What the program and kernels say about themselves. */
  CHECK(clGetKernelInfo(add, CL_KERNEL_NUM_ARGS, sizeof num, &num, NULL));
  REPORT("add_num_args", num);
  CHECK(clGetKernelInfo(fixed, CL_KERNEL_NUM_ARGS, sizeof num, &num, NULL));
  REPORT("fixed_num_args", num);
  CHECK(clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof size, &size, NULL));
  REPORT("program_num_kernels", size);
  CHECK(clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, sizeof text, text, NULL));
  fprintf(app_out, "kernel_names = %s\n", text);
  CHECK(clGetProgramInfo(prog, CL_PROGRAM_SOURCE, sizeof text, text, &size));
  REPORT("source_is_original", strcmp(text, kSource) == 0 && size == strlen(kSource) + 1);
  CHECK(clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof num, &num, NULL));
  REPORT("program_num_devices", num);
  CHECK(clGetKernelArgInfo(add, 2, CL_KERNEL_ARG_NAME, sizeof text, text, NULL));
  fprintf(app_out, "add_arg2_name = %s\n", text);
  REPORT("arg_info_bad_index", clGetKernelArgInfo(add, 3, CL_KERNEL_ARG_NAME, sizeof text, text,
                                                  NULL));
  {
    size_t reqd[3];
    CHECK(clGetKernelWorkGroupInfo(fixed, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof reqd,
                                   reqd, NULL));
    REPORT("fixed_reqd_x", reqd[0]);
  }
  REPORT("wg_info_bad_param", clGetKernelWorkGroupInfo(add, dev, 0x7fff, sizeof text, text, NULL));

  /* Kernel arguments. */
  REPORT("arg_bad_index", clSetKernelArg(add, 3, sizeof value, &value));
  REPORT("arg_bad_size_buffer", clSetKernelArg(add, 0, 2, &buf));
  REPORT("arg_bad_size_scalar", clSetKernelArg(add, 1, 2, &value));
  REPORT("arg_null_scalar", clSetKernelArg(add, 1, sizeof value, NULL));
  REPORT("arg_local_with_value", clSetKernelArg(add, 2, 64, &value));
  REPORT("arg_local_zero_size", clSetKernelArg(add, 2, 0, NULL));
  REPORT("arg_null_kernel", clSetKernelArg(NULL, 0, sizeof buf, &buf));

  /* Launches. */
  REPORT("launch_args_unset", clEnqueueNDRangeKernel(q, add, 1, NULL, &global, &local, 0, NULL,
                                                     NULL));
  CHECK(clSetKernelArg(add, 0, sizeof buf, &buf));
  CHECK(clSetKernelArg(add, 1, sizeof value, &value));
  REPORT("launch_one_arg_unset", clEnqueueNDRangeKernel(q, add, 1, NULL, &global, &local, 0,
                                                        NULL, NULL));
  CHECK(clSetKernelArg(add, 2, local * sizeof(cl_int), NULL));
  REPORT("launch_dim_zero", clEnqueueNDRangeKernel(q, add, 0, NULL, &global, &local, 0, NULL,
                                                   NULL));
  REPORT("launch_dim_four", clEnqueueNDRangeKernel(q, add, 4, NULL, &global, &local, 0, NULL,
                                                   NULL));
  REPORT("launch_indivisible", clEnqueueNDRangeKernel(q, add, 1, NULL, &global, &bad_local, 0,
                                                      NULL, NULL));
  REPORT("launch_null_global", clEnqueueNDRangeKernel(q, add, 1, NULL, NULL, &local, 0, NULL,
                                                      NULL));
  /* (A NULL kernel with a valid queue, or a launch with 1 event and a NULL
   * wait list, crash PoCL 3.1 itself: not tested.) */
  REPORT("launch_null_queue", clEnqueueNDRangeKernel(NULL, add, 1, NULL, &global, &local, 0,
                                                     NULL, NULL));
  CHECK(clSetKernelArg(fixed, 0, sizeof buf, &buf));
  {
    size_t wrong = 32;
    REPORT("launch_reqd_mismatch", clEnqueueNDRangeKernel(q, fixed, 1, NULL, &global, &wrong, 0,
                                                          NULL, NULL));
  }

  /* Events. */
  REPORT("wait_zero_events", clWaitForEvents(0, NULL));
  REPORT("wait_null_event_list", clWaitForEvents(1, NULL));
  user = clCreateUserEvent(ctx, &err);
  CHECK_ERR(err);
  CHECK(clSetUserEventStatus(user, CL_COMPLETE));
  REPORT("user_event_set_twice", clSetUserEventStatus(user, CL_COMPLETE));
  REPORT("user_event_bad_status", clSetUserEventStatus(user, 5));
  clReleaseEvent(user);

  /* Finally a valid launch and read: the runtime is still fine. */
  CHECK(clEnqueueNDRangeKernel(q, add, 1, NULL, &global, &local, 0, NULL, &ev));
  REPORT("profiling_not_enabled", clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
                                                          sizeof t, &t, NULL));
  CHECK(clEnqueueNDRangeKernel(q, fixed, 1, NULL, &global, &local, 1, &ev, NULL));
  CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
  app_dump("valid_result", host, sizeof host);
  REPORT("read_after_finish", clEnqueueReadBuffer(q, buf, CL_TRUE, 0, 4, &zero, 0, NULL, NULL));
  REPORT("zero", zero);

  clReleaseEvent(ev);
  clReleaseKernel(add);
  clReleaseKernel(fixed);
  clReleaseProgram(prog);
  clReleaseProgram(broken);
  clReleaseProgram(unbuilt);
  clReleaseMemObject(buf);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
