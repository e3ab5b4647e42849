// Host <-> device copy bandwidth of one device, natively: ordinary (pageable)
// host memory against pinned memory obtained the portable way (a buffer made
// with CL_MEM_ALLOC_HOST_PTR, mapped). The data issue 10 asks for before
// libsplit's shadows and staging buffers move to pinned memory.
//   host_bandwidth [--device N] [--repeat R] [--pinned-by M]
// (devices of all platforms, in order). Prints one line per size and
// direction: median GB/s of R copies.
//
// --pinned-by M (issue 23: moves between GPUs that each have a context of
// their own go through one staging buffer, pinned in one device's context):
// the pinned memory is allocated and mapped in a context of device M
// instead, and the copies to and from device N use it as it is
// (pinned_other_GBs), then after a CL_MEM_USE_HOST_PTR buffer over the
// same memory was created and mapped in N's context (registered_GBs), as
// libsplit could register its staging buffer with every context.
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// Median GB/s of `repeat` blocking copies between `host` and `device_mem`.
static double bandwidth(cl_command_queue q, cl_mem device_mem, void* host, size_t bytes, int to_device,
                        int repeat) {
  double* gbs = malloc(sizeof(double) * (size_t)repeat);
  for (int i = -1; i < repeat; ++i) {  // copy -1 warms up (first touch of the device's pages)
    double t0 = bench_now_ms();
    cl_int err = to_device ? clEnqueueWriteBuffer(q, device_mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                           : clEnqueueReadBuffer(q, device_mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    bench_check_cl(err, to_device ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer");
    if (i >= 0) gbs[i] = (double)bytes / ((bench_now_ms() - t0) * 1e6);
  }
  qsort(gbs, (size_t)repeat, sizeof(double), compare_double);
  double median = gbs[repeat / 2];
  free(gbs);
  return median;
}

int main(int argc, char** argv) {
  int device = 0, repeat = 7, pinned_by = -1;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--device") && i + 1 < argc) device = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--pinned-by") && i + 1 < argc) pinned_by = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: %s [--device N] [--repeat R] [--pinned-by M]\n", argv[0]);
      return 2;
    }
  }
  if (repeat < 1) repeat = 1;
  bench_cl cl = bench_open(device);
  bench_cl other = pinned_by >= 0 ? bench_open(pinned_by) : cl;
  const size_t sizes[] = {1u << 20, 16u << 20, 256u << 20};
  printf(pinned_by >= 0 ? "size_MB,direction,pageable_GBs,pinned_GBs,pinned_other_GBs,registered_GBs\n"
                        : "size_MB,direction,pageable_GBs,pinned_GBs\n");
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    const size_t bytes = sizes[s];
    cl_int err;
    cl_mem device_mem = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    bench_check_cl(err, "clCreateBuffer");
    cl_mem pinned_mem = clCreateBuffer(cl.context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, NULL, &err);
    bench_check_cl(err, "clCreateBuffer(ALLOC_HOST_PTR)");
    void* pinned = clEnqueueMapBuffer(cl.queue, pinned_mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                      0, NULL, NULL, &err);
    bench_check_cl(err, "clEnqueueMapBuffer");
    void* pageable = malloc(bytes);
    memset(pageable, 1, bytes);
    memset(pinned, 1, bytes);
    for (int to_device = 1; to_device >= 0; --to_device) {
      printf("%zu,%s,%.2f,%.2f", bytes >> 20, to_device ? "to_device" : "to_host",
             bandwidth(cl.queue, device_mem, pageable, bytes, to_device, repeat),
             bandwidth(cl.queue, device_mem, pinned, bytes, to_device, repeat));
      if (pinned_by < 0) {
        printf("\n");
        continue;
      }
      cl_mem other_mem = clCreateBuffer(other.context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, NULL, &err);
      bench_check_cl(err, "clCreateBuffer(ALLOC_HOST_PTR, other context)");
      void* other_ptr = clEnqueueMapBuffer(other.queue, other_mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                           0, NULL, NULL, &err);
      bench_check_cl(err, "clEnqueueMapBuffer(other context)");
      memset(other_ptr, 1, bytes);
      printf(",%.2f", bandwidth(cl.queue, device_mem, other_ptr, bytes, to_device, repeat));
      cl_mem registered = clCreateBuffer(cl.context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, other_ptr, &err);
      bench_check_cl(err, "clCreateBuffer(USE_HOST_PTR over the other context's memory)");
      void* mapped = clEnqueueMapBuffer(cl.queue, registered, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                        0, NULL, NULL, &err);
      bench_check_cl(err, "clEnqueueMapBuffer(registered)");
      printf(",%.2f%s\n", bandwidth(cl.queue, device_mem, other_ptr, bytes, to_device, repeat),
             mapped == other_ptr ? "" : " (mapped elsewhere)");
      clEnqueueUnmapMemObject(cl.queue, registered, mapped, 0, NULL, NULL);
      clFinish(cl.queue);
      clReleaseMemObject(registered);
      clEnqueueUnmapMemObject(other.queue, other_mem, other_ptr, 0, NULL, NULL);
      clFinish(other.queue);
      clReleaseMemObject(other_mem);
    }
    clEnqueueUnmapMemObject(cl.queue, pinned_mem, pinned, 0, NULL, NULL);
    clFinish(cl.queue);
    free(pageable);
    clReleaseMemObject(pinned_mem);
    clReleaseMemObject(device_mem);
  }
  if (pinned_by >= 0) bench_close(&other);
  bench_close(&cl);
  return 0;
}
