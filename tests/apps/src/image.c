/* image: kernels on images (which libsplit does not split) next to buffer
 * kernels (which it does), sharing data.
 * Covers: clCreateImage (2D, RGBA, UNSIGNED_INT8) from host data, a kernel
 * reading it with a nearest/clamp sampler into a buffer, a kernel writing
 * an image with write_imageui, clEnqueueReadImage / WriteImage of a region,
 * clEnqueueCopyImageToBuffer and CopyBufferToImage, a splittable buffer
 * kernel consuming what the image kernel produced. Integer texels only. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__constant sampler_t kNearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |\n"
    "                                CLK_FILTER_NEAREST;\n"
    "__kernel void sample(__read_only image2d_t img, __global uint4* out, int w) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  uint4 a = read_imageui(img, kNearest, (int2)(x, y));\n"
    "  uint4 b = read_imageui(img, kNearest, (int2)(x + 1, y - 1));\n"
    "  out[y * w + x] = a + b;\n"
    "}\n"
    "__kernel void paint(__write_only image2d_t img) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  write_imageui(img, (int2)(x, y), (uint4)(x & 255, y & 255, (x ^ y) & 255, 255));\n"
    "}\n"
    "__kernel void brighten(__global uchar4* px, uchar add) {\n"
    "  size_t i = get_global_id(0);\n"
    "  px[i] = add_sat(px[i], (uchar4)(add));\n"
    "}\n";

enum { W = 64, H = 48 };

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel sample, paint, brighten;
  cl_bool has_images = CL_FALSE;
  static cl_uchar texels[W * H * 4], region_px[16 * 8 * 4];
  static cl_uint sums[W * H * 4];
  cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc;
  cl_mem src, dst, bsums, bpx;
  cl_int w = W;
  cl_uchar add = 40;
  size_t global[2] = {W, H}, local[2] = {16, 8}, n = W * H;
  size_t origin[3] = {0, 0, 0}, full[3] = {W, H, 1};
  size_t sub_origin[3] = {10, 20, 0}, sub_region[3] = {16, 8, 1};
  int i;

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
  q = clCreateCommandQueue(ctx, dev, 0, &err);
  CHECK_ERR(err);
  prog = app_build(ctx, dev, kSource, NULL);
  sample = app_kernel(prog, "sample");
  paint = app_kernel(prog, "paint");
  brighten = app_kernel(prog, "brighten");

  for (i = 0; i < W * H * 4; ++i) texels[i] = (cl_uchar)app_rand();
  memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = W;
  desc.image_height = H;
  src = clCreateImage(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc, texels, &err);
  CHECK_ERR(err);
  dst = clCreateImage(ctx, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
  CHECK_ERR(err);
  bsums = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof sums, NULL, &err);
  CHECK_ERR(err);
  bpx = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  CHECK_ERR(err);

  CHECK(clSetKernelArg(sample, 0, sizeof src, &src));
  CHECK(clSetKernelArg(sample, 1, sizeof bsums, &bsums));
  CHECK(clSetKernelArg(sample, 2, sizeof w, &w));
  CHECK(clEnqueueNDRangeKernel(q, sample, 2, NULL, global, local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bsums, CL_TRUE, 0, sizeof sums, sums, 0, NULL, NULL));
  app_dump("sampled_sums", sums, sizeof sums);

  CHECK(clSetKernelArg(paint, 0, sizeof dst, &dst));
  CHECK(clEnqueueNDRangeKernel(q, paint, 2, NULL, global, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadImage(q, dst, CL_TRUE, sub_origin, sub_region, 0, 0, region_px, 0, NULL,
                           NULL));
  app_dump("painted_region", region_px, sizeof region_px);

  /* Image -> buffer, a splittable buffer kernel, buffer -> image, read all. */
  CHECK(clEnqueueCopyImageToBuffer(q, dst, bpx, origin, full, 0, 0, NULL, NULL));
  CHECK(clSetKernelArg(brighten, 0, sizeof bpx, &bpx));
  CHECK(clSetKernelArg(brighten, 1, sizeof add, &add));
  CHECK(clEnqueueNDRangeKernel(q, brighten, 1, NULL, &n, NULL, 0, NULL, NULL));
  CHECK(clEnqueueCopyBufferToImage(q, bpx, dst, 0, origin, full, 0, NULL, NULL));
  for (i = 0; i < 16 * 8 * 4; ++i) region_px[i] = (cl_uchar)(i * 7);
  CHECK(clEnqueueWriteImage(q, dst, CL_TRUE, sub_origin, sub_region, 0, 0, region_px, 0, NULL,
                            NULL));
  CHECK(clEnqueueReadImage(q, dst, CL_TRUE, origin, full, 0, 0, texels, 0, NULL, NULL));
  app_dump("final_image", texels, sizeof texels);

  clReleaseMemObject(src);
  clReleaseMemObject(dst);
  clReleaseMemObject(bsums);
  clReleaseMemObject(bpx);
  clReleaseKernel(sample);
  clReleaseKernel(paint);
  clReleaseKernel(brighten);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
