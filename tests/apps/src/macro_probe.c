/* macro_probe: which macros the device's OpenCL C compiler predefines, and
 * their values, for the macros a driver derives from the device (version,
 * extensions, OpenCL C features, image support, endianness, profile, FMA).
 * One kernel writes, per probed name, 1 + its value when defined, else 0.
 * Printed as "<options label>:<name> = <value>" (undefined: -1). Built
 * without -cl-std and with -cl-std=CL1.2. The test driver compares this with
 * the macro sets the shim derives for libsplit-cc (LIBSPLIT_LOG=2). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kNames[] = {
    "__OPENCL_VERSION__", "__OPENCL_C_VERSION__", "__IMAGE_SUPPORT__", "__ENDIAN_LITTLE__",
    "__EMBEDDED_PROFILE__", "FP_FAST_FMA", "FP_FAST_FMAF", "cl_khr_fp16", "cl_khr_fp64",
    "cl_khr_byte_addressable_store", "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics", "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics", "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics", "cl_khr_3d_image_writes", "cl_khr_subgroups",
    "cl_khr_mipmap_image", "cl_khr_srgb_image_writes", "cl_khr_gl_msaa_sharing",
    "cl_khr_extended_bit_ops", "cl_ext_float_atomics", "cl_intel_subgroups", "cl_amd_media_ops",
    "cl_khr_spir", "cl_khr_command_buffer",
    "__opencl_c_3d_image_writes", "__opencl_c_images", "__opencl_c_read_write_images",
    "__opencl_c_fp64", "__opencl_c_int64", "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices", "__opencl_c_generic_address_space",
    "__opencl_c_pipes", "__opencl_c_device_enqueue", "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions", "__opencl_c_program_scope_global_variables",
};
enum { COUNT = sizeof kNames / sizeof kNames[0] };

int main(int argc, char** argv) {
  static const char* kOptions[][2] = {{"default", ""}, {"cl12", "-cl-std=CL1.2"}};
  static char source[256 * COUNT + 256];
  const char* src = source;
  cl_long values[COUNT];
  size_t global = 1, n = 0, o, i;
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_mem out;

  n += (size_t)sprintf(source + n, "__kernel void probe(__global long* o) {\n");
  for (i = 0; i < COUNT; ++i)
    n += (size_t)sprintf(source + n, "#ifdef %s\n  o[%zu] = 1 + (long)(%s + 0);\n#endif\n", kNames[i], i,
                         kNames[i]);
  sprintf(source + n, "}\n");

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof values, NULL, &err);
  CHECK_ERR(err);
  for (o = 0; o < 2; ++o) {
    cl_program prog = app_build(ctx, dev, src, kOptions[o][1]);
    cl_kernel k = app_kernel(prog, "probe");
    memset(values, 0, sizeof values);
    CHECK(clEnqueueWriteBuffer(q, out, CL_TRUE, 0, sizeof values, values, 0, NULL, NULL));
    CHECK(clSetKernelArg(k, 0, sizeof out, &out));
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof values, values, 0, NULL, NULL));
    for (i = 0; i < COUNT; ++i) {
      char name[160];
      snprintf(name, sizeof name, "%s:%s", kOptions[o][0], kNames[i]);
      app_print(name, values[i] ? (long long)values[i] - 1 : -1);
    }
    clReleaseKernel(k);
    clReleaseProgram(prog);
  }
  clReleaseMemObject(out);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
