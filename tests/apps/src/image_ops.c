/* image_ops: every image entry point next to splittable buffer kernels.
 * Covers: a blur (read_imagef through a sampler ARGUMENT made with
 * clCreateSampler, linear filtering, normalized coordinates) of a float
 * image made by a kernel (write_imagef), so an image written by one kernel
 * is read by the next; a kernel mixing an image and buffers; a splittable
 * buffer kernel between image kernels (buffers move between devices while
 * images stay whole); clEnqueueRead/Write/Copy/FillImage, CopyImageToBuffer,
 * CopyBufferToImage, MapImage (read and write) and unmap; a 3D image, a 2D
 * image array and a 1D image array (USE_HOST_PTR with a padded row pitch);
 * clCreateImage2D (1.x); clCreateSamplerWithProperties; a 1D image over a
 * buffer (shared storage: a split buffer kernel writes the buffer, an image
 * kernel reads it through the image, the image is read back after the
 * buffer changed); clGetImageInfo,
 * clGetMemObjectInfo, clGetSamplerInfo answers; image formats listed. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS /* clCreateImage2D */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS /* clCreateSampler */
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable\n"
    "__kernel void make(__write_only image2d_t out, float scale) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float v = sin(x * 0.37f) * cos(y * 0.21f) * scale;\n"
    "  write_imagef(out, (int2)(x, y), (float4)(v, v * 0.5f, x * 0.01f, y * 0.02f));\n"
    "}\n"
    "__kernel void blur(__read_only image2d_t in, sampler_t smp, __write_only image2d_t out,\n"
    "                   __global float4* sums) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  int w = get_image_width(in), h = get_image_height(in);\n"
    "  float4 acc = (float4)(0.0f);\n"
    "  for (int dy = -1; dy <= 1; ++dy)\n"
    "    for (int dx = -1; dx <= 1; ++dx) {\n"
    "      float2 c = (float2)((x + dx + 0.5f) / w, (y + dy + 0.5f) / h);\n"
    "      acc += read_imagef(in, smp, c + (float2)(0.25f / w, 0.0f));\n"
    "    }\n"
    "  acc /= 9.0f;\n"
    "  write_imagef(out, (int2)(x, y), acc);\n"
    "  sums[y * w + x] = acc;\n"
    "}\n"
    "__kernel void scale(__global float4* v, float f) {\n"
    "  size_t i = get_global_id(0);\n"
    "  v[i] = v[i] * f + (float4)(1.0f, 2.0f, 3.0f, 4.0f);\n"
    "}\n"
    "__kernel void combine(__read_only image2d_t img, sampler_t smp, __global const float4* add,\n"
    "                  __global float* out, int w) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 p = read_imagef(img, smp, (int2)(x, y)) + add[y * w + x];\n"
    "  out[y * w + x] = p.x + p.y * 2.0f + p.z * 3.0f + p.w * 4.0f;\n"
    "}\n"
    "__kernel void volume(__write_only image3d_t vol) {\n"
    "  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "  write_imageui(vol, (int4)(x, y, z, 0), (uint4)(x + y * 16 + z * 256, z, y, x));\n"
    "}\n"
    "__kernel void layers(__read_only image2d_array_t arr, __read_only image1d_array_t lines,\n"
    "                     __global int4* out) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;\n"
    "  int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);\n"
    "  int4 a = read_imagei(arr, s, (int4)(x, y, l, 0));\n"
    "  int4 b = read_imagei(lines, s, (int2)(x, l));\n"
    "  out[(l * 8 + y) * 8 + x] = a * 3 + b;\n"
    "}\n"
    "__kernel void ramp(__read_only image1d_buffer_t in, __global float4* out) {\n"
    "  int i = get_global_id(0);\n"
    "  out[i] = read_imagef(in, i) * 2.0f + (float4)(i);\n"
    "}\n";

enum { W = 64, H = 32, N = W * H };

static void print_image_info(const char* tag, cl_mem img) {
  char name[64];
  size_t v = 0;
  cl_image_format f;
  cl_mem_object_type type = 0;
  cl_mem_flags flags = 0;
  CHECK(clGetImageInfo(img, CL_IMAGE_FORMAT, sizeof f, &f, NULL));
  snprintf(name, sizeof name, "%s_format", tag);
  app_print(name, (long long)f.image_channel_order * 100000 + f.image_channel_data_type);
#define INFO(param, label)                                          \
  CHECK(clGetImageInfo(img, param, sizeof v, &v, NULL));            \
  snprintf(name, sizeof name, "%s_%s", tag, label);                 \
  app_print(name, (long long)v);
  INFO(CL_IMAGE_ELEMENT_SIZE, "element_size")
  INFO(CL_IMAGE_WIDTH, "width")
  INFO(CL_IMAGE_HEIGHT, "height")
  INFO(CL_IMAGE_DEPTH, "depth")
  INFO(CL_IMAGE_ARRAY_SIZE, "array_size")
#undef INFO
  CHECK(clGetMemObjectInfo(img, CL_MEM_TYPE, sizeof type, &type, NULL));
  CHECK(clGetMemObjectInfo(img, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
  snprintf(name, sizeof name, "%s_type_flags", tag);
  app_print(name, (long long)type * 1000 + (long long)flags);
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel make, blur, scale, mix, volume, layers;
  cl_bool has_images = CL_FALSE;
  cl_image_format rgba_f = {CL_RGBA, CL_FLOAT}, rgba_u = {CL_RGBA, CL_UNSIGNED_INT32},
                  rgba_i = {CL_RGBA, CL_SIGNED_INT32};
  cl_image_desc desc;
  cl_mem a, b, c, vol, arr, lines, sums, mixed;
  cl_sampler linear, nearest;
  cl_sampler_properties props[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE, CL_SAMPLER_ADDRESSING_MODE,
                                   CL_ADDRESS_CLAMP_TO_EDGE, CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, 0};
  static float pixels[N * 4], host_sums[N * 4], mixed_out[N];
  static cl_uint voxels[8 * 8 * 4 * 4];
  static cl_int layer_px[8 * 8 * 3 * 4], line_px[3][12 * 4], layered[3 * 8 * 8 * 4];
  size_t g2[2] = {W, H}, l2[2] = {16, 8}, n = N, g3[3] = {8, 8, 4}, gl[3] = {8, 8, 3};
  size_t origin[3] = {0, 0, 0}, full[3] = {W, H, 1}, part_o[3] = {5, 3, 0}, part_r[3] = {20, 9, 1};
  size_t write_o[3] = {30, 20, 0};
  size_t vol_full[3] = {8, 8, 4}, vol_part_o[3] = {1, 2, 1}, vol_part_r[3] = {5, 4, 2};
  size_t row_pitch = 0, slice_pitch = 0, v;
  float f = 0.75f, amplitude = 3.0f;
  float red[4] = {1.0f, 0.0f, 0.5f, 0.25f};
  cl_uint formats = 0;
  cl_int w = W;
  cl_bool normalized = CL_FALSE;
  int i, x, y;
  float* mapped;
  cl_int* mapped_i;

  app_open_output(argc, argv);
  dev = app_first_device(NULL);
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof has_images, &has_images, NULL));
  app_print("image_support", has_images);
  if (!has_images) {
    app_close_output();
    return 0;
  }
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK_ERR(err);
  q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
  CHECK_ERR(err);
  CHECK(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &formats));
  app_print("rw_2d_formats", formats);
  CHECK(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE3D, 0, NULL, &formats));
  app_print("ro_3d_formats", formats);
  prog = app_build(ctx, dev, kSource, NULL);
  make = app_kernel(prog, "make");
  blur = app_kernel(prog, "blur");
  scale = app_kernel(prog, "scale");
  mix = app_kernel(prog, "combine");
  volume = app_kernel(prog, "volume");
  layers = app_kernel(prog, "layers");

  memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = W;
  desc.image_height = H;
  a = clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba_f, &desc, NULL, &err);
  CHECK_ERR(err);
  b = clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba_f, &desc, NULL, &err);
  CHECK_ERR(err);
  c = clCreateImage2D(ctx, CL_MEM_READ_WRITE, &rgba_f, W, H, 0, NULL, &err);
  CHECK_ERR(err);
  sums = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host_sums, NULL, &err);
  CHECK_ERR(err);
  mixed = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof mixed_out, NULL, &err);
  CHECK_ERR(err);
  linear = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR, &err);
  CHECK_ERR(err);
  nearest = clCreateSamplerWithProperties(ctx, props, &err);
  CHECK_ERR(err);
  CHECK(clGetSamplerInfo(nearest, CL_SAMPLER_NORMALIZED_COORDS, sizeof normalized, &normalized, NULL));
  app_print("nearest_normalized", normalized);
  print_image_info("a", a);
  print_image_info("c", c);

  /* make -> blur (image written by one kernel, read by the next). */
  CHECK(clSetKernelArg(make, 0, sizeof a, &a));
  CHECK(clSetKernelArg(make, 1, sizeof amplitude, &amplitude));
  CHECK(clEnqueueNDRangeKernel(q, make, 2, NULL, g2, l2, 0, NULL, NULL));
  CHECK(clSetKernelArg(blur, 0, sizeof a, &a));
  CHECK(clSetKernelArg(blur, 1, sizeof linear, &linear));
  CHECK(clSetKernelArg(blur, 2, sizeof b, &b));
  CHECK(clSetKernelArg(blur, 3, sizeof sums, &sums));
  CHECK(clEnqueueNDRangeKernel(q, blur, 2, NULL, g2, l2, 0, NULL, NULL));
  CHECK(clEnqueueReadImage(q, b, CL_TRUE, origin, full, 0, 0, pixels, 0, NULL, NULL));
  app_dump("blurred", pixels, sizeof pixels);

  /* A splittable buffer kernel on the blur's buffer output, then a kernel
   * mixing an image (sampler argument) with that buffer. */
  CHECK(clSetKernelArg(scale, 0, sizeof sums, &sums));
  CHECK(clSetKernelArg(scale, 1, sizeof f, &f));
  for (i = 0; i < 3; ++i) CHECK(clEnqueueNDRangeKernel(q, scale, 1, NULL, &n, NULL, 0, NULL, NULL));
  CHECK(clSetKernelArg(mix, 0, sizeof b, &b));
  CHECK(clSetKernelArg(mix, 1, sizeof nearest, &nearest));
  CHECK(clSetKernelArg(mix, 2, sizeof sums, &sums));
  CHECK(clSetKernelArg(mix, 3, sizeof mixed, &mixed));
  CHECK(clSetKernelArg(mix, 4, sizeof w, &w));
  CHECK(clEnqueueNDRangeKernel(q, mix, 2, NULL, g2, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, mixed, CL_TRUE, 0, sizeof mixed_out, mixed_out, 0, NULL, NULL));
  app_dump("mixed", mixed_out, sizeof mixed_out);

  /* Copy, fill, write, map (read then write), copy to and from buffers. */
  CHECK(clEnqueueCopyImage(q, b, c, origin, origin, full, 0, NULL, NULL));
  CHECK(clEnqueueFillImage(q, c, red, part_o, part_r, 0, NULL, NULL));
  for (i = 0; i < 20 * 9 * 4; ++i) pixels[i] = (float)i * 0.125f;
  CHECK(clEnqueueWriteImage(q, c, CL_FALSE, write_o, part_r, 0, 0, pixels, 0, NULL, NULL));
  CHECK(clFinish(q));
  mapped = (float*)clEnqueueMapImage(q, c, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, part_o, part_r, &row_pitch,
                                     NULL, 0, NULL, NULL, &err);
  CHECK_ERR(err);
  for (y = 0; y < 9; ++y)
    for (x = 0; x < 20 * 4; ++x) {
      float* p = (float*)((char*)mapped + y * row_pitch) + x;
      *p = *p * 2.0f - 1.0f;
    }
  CHECK(clEnqueueUnmapMemObject(q, c, mapped, 0, NULL, NULL));
  CHECK(clEnqueueCopyImageToBuffer(q, c, sums, origin, full, 0, 0, NULL, NULL));
  CHECK(clEnqueueNDRangeKernel(q, scale, 1, NULL, &n, NULL, 0, NULL, NULL));
  CHECK(clEnqueueCopyBufferToImage(q, sums, a, 0, origin, full, 0, NULL, NULL));
  mapped = (float*)clEnqueueMapImage(q, a, CL_TRUE, CL_MAP_READ, origin, full, &row_pitch, NULL, 0, NULL,
                                     NULL, &err);
  CHECK_ERR(err);
  for (y = 0; y < H; ++y) memcpy(pixels + y * W * 4, (char*)mapped + y * row_pitch, W * 16);
  CHECK(clEnqueueUnmapMemObject(q, a, mapped, 0, NULL, NULL));
  app_dump("copied_filled_mapped", pixels, sizeof pixels);
  CHECK(clEnqueueReadImage(q, c, CL_TRUE, part_o, part_r, 0, 0, pixels, 0, NULL, NULL));
  app_dump("region", pixels, 20 * 9 * 16);

  /* A 3D image written by a kernel, read back whole and in part. */
  memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE3D;
  desc.image_width = 8;
  desc.image_height = 8;
  desc.image_depth = 4;
  vol = clCreateImage(ctx, CL_MEM_WRITE_ONLY, &rgba_u, &desc, NULL, &err);
  CHECK_ERR(err);
  print_image_info("vol", vol);
  CHECK(clSetKernelArg(volume, 0, sizeof vol, &vol));
  CHECK(clEnqueueNDRangeKernel(q, volume, 3, NULL, g3, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadImage(q, vol, CL_TRUE, origin, vol_full, 0, 0, voxels, 0, NULL, NULL));
  app_dump("volume", voxels, sizeof voxels);
  memset(voxels, 0, sizeof voxels);
  CHECK(clEnqueueReadImage(q, vol, CL_TRUE, vol_part_o, vol_part_r, 6 * 16, 6 * 16 * 5, voxels, 0, NULL,
                           NULL));
  app_dump("volume_part", voxels, sizeof voxels);

  /* A 2D image array from host data; a 1D image array over padded host
   * memory (USE_HOST_PTR), changed through a map. */
  for (i = 0; i < 8 * 8 * 3 * 4; ++i) layer_px[i] = i * 7 - 300;
  for (i = 0; i < 3 * 12 * 4; ++i) line_px[i / 48][i % 48] = i * 11;
  memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY;
  desc.image_width = 8;
  desc.image_height = 8;
  desc.image_array_size = 3;
  arr = clCreateImage(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &rgba_i, &desc, layer_px, &err);
  CHECK_ERR(err);
  memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE1D_ARRAY;
  desc.image_width = 8;
  desc.image_array_size = 3;
  desc.image_row_pitch = 12 * 16;
  desc.image_slice_pitch = 12 * 16;
  lines = clCreateImage(ctx, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, &rgba_i, &desc, line_px, &err);
  CHECK_ERR(err);
  print_image_info("arr", arr);
  print_image_info("lines", lines);
  {
    size_t lo[3] = {2, 1, 0}, lr[3] = {4, 2, 1};
    mapped_i = (cl_int*)clEnqueueMapImage(q, lines, CL_TRUE, CL_MAP_WRITE, lo, lr, &row_pitch, &slice_pitch,
                                          0, NULL, NULL, &err);
    CHECK_ERR(err);
    for (y = 0; y < 2; ++y)
      for (x = 0; x < 4 * 4; ++x) ((cl_int*)((char*)mapped_i + y * slice_pitch))[x] = -x - 100 * y;
    CHECK(clEnqueueUnmapMemObject(q, lines, mapped_i, 0, NULL, NULL));
  }
  CHECK(clSetKernelArg(layers, 0, sizeof arr, &arr));
  CHECK(clSetKernelArg(layers, 1, sizeof lines, &lines));
  {
    cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof layered, NULL, &err);
    CHECK_ERR(err);
    CHECK(clSetKernelArg(layers, 2, sizeof out, &out));
    CHECK(clEnqueueNDRangeKernel(q, layers, 3, NULL, gl, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof layered, layered, 0, NULL, NULL));
    app_dump("layers", layered, sizeof layered);
    clReleaseMemObject(out);
  }
  v = 0;
  CHECK(clGetImageInfo(lines, CL_IMAGE_ROW_PITCH, sizeof v, &v, NULL));
  app_print("lines_row_pitch", (long long)v);

  /* A 1D image over (the first 256 texels of) a 300-texel buffer. */
  {
    static float lin_px[300 * 4], ramp_out[256 * 4];
    size_t texels = 256, all = 300, lo[3] = {0, 0, 0}, lr[3] = {256, 1, 1};
    cl_mem lin, img1d, out, assoc = NULL, buffer_of = NULL;
    cl_kernel ramp = app_kernel(prog, "ramp");
    float g = 0.5f;
    for (i = 0; i < 300 * 4; ++i) lin_px[i] = (float)(i % 37) - 5.0f;
    lin = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof lin_px, lin_px, &err);
    CHECK_ERR(err);
    out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof ramp_out, NULL, &err);
    CHECK_ERR(err);
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    desc.image_width = 256;
    desc.buffer = lin;
    img1d = clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba_f, &desc, NULL, &err);
    CHECK_ERR(err);
    print_image_info("img1d", img1d);
    CHECK(clGetImageInfo(img1d, CL_IMAGE_BUFFER, sizeof buffer_of, &buffer_of, NULL));
    CHECK(clGetMemObjectInfo(img1d, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL));
    app_print("img1d_buffer_is_lin", buffer_of == lin && assoc == lin);
    CHECK(clSetKernelArg(scale, 0, sizeof lin, &lin));
    CHECK(clSetKernelArg(scale, 1, sizeof g, &g));
    CHECK(clEnqueueNDRangeKernel(q, scale, 1, NULL, &all, NULL, 0, NULL, NULL));
    CHECK(clSetKernelArg(ramp, 0, sizeof img1d, &img1d));
    CHECK(clSetKernelArg(ramp, 1, sizeof out, &out));
    CHECK(clEnqueueNDRangeKernel(q, ramp, 1, NULL, &texels, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof ramp_out, ramp_out, 0, NULL, NULL));
    app_dump("ramp", ramp_out, sizeof ramp_out);
    /* (Writes through the image are left out: PoCL 3.1 itself crashes
     * when a kernel, a fill or a write changes an image1d_buffer_t.) */
    CHECK(clEnqueueNDRangeKernel(q, scale, 1, NULL, &all, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, lin, CL_TRUE, 0, sizeof lin_px, lin_px, 0, NULL, NULL));
    app_dump("lin", lin_px, sizeof lin_px);
    CHECK(clEnqueueReadImage(q, img1d, CL_TRUE, lo, lr, 0, 0, ramp_out, 0, NULL, NULL));
    app_dump("img1d", ramp_out, sizeof ramp_out);
    clReleaseMemObject(img1d);
    clReleaseMemObject(lin);
    clReleaseMemObject(out);
    clReleaseKernel(ramp);
  }

  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
  clReleaseMemObject(vol);
  clReleaseMemObject(arr);
  clReleaseMemObject(lines);
  clReleaseMemObject(sums);
  clReleaseMemObject(mixed);
  clReleaseSampler(linear);
  clReleaseSampler(nearest);
  clReleaseKernel(make);
  clReleaseKernel(blur);
  clReleaseKernel(scale);
  clReleaseKernel(mix);
  clReleaseKernel(volume);
  clReleaseKernel(layers);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
