// A clFFT user: complex single-precision FFTs through clFFT's API on the first
// device — a batch of 1D transforms and one 2D transform, each forward
// and then inverse (out of place, scaled back by clFFT) — with
// every result printed as the FNV-1a hash of its bits and a few values in
// hex, so that a run under the shim is compared with the native one bit for
// bit. clFFT generates and builds its kernels when a plan is baked; the
// lengths mix radices 2, 3 and 5 so that several generated kernels run.
// usage: clfft_forward_inverse [LENGTH_1D] [ROWS_2D] [COLUMNS_2D]
#include <clFFT.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long fnv1a(const float* values, size_t count) {
  unsigned long long h = 1469598103934665603ull;
  const unsigned char* bytes = (const unsigned char*)values;
  for (size_t i = 0; i < count * sizeof(float); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

static void print_result(const char* name, const float* values, size_t count) {
  printf("%s: floats=%zu fnv=%016llx first=%a,%a last=%a,%a\n", name, count, fnv1a(values, count), values[0],
         values[1], values[count - 2], values[count - 1]);
}

static int check(const char* what, int status) {
  if (status != 0) fprintf(stderr, "%s failed: %d\n", what, status);
  return status != 0;
}

// A baked single-precision complex-interleaved out-of-place plan of `batch`
// transforms.
static int make_plan(cl_context ctx, cl_command_queue q, clfftDim dim, const size_t* lengths, size_t batch,
                     clfftPlanHandle* plan) {
  int failed = check("clfftCreateDefaultPlan", clfftCreateDefaultPlan(plan, ctx, dim, lengths)) ||
               check("clfftSetPlanPrecision", clfftSetPlanPrecision(*plan, CLFFT_SINGLE)) ||
               check("clfftSetLayout", clfftSetLayout(*plan, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED)) ||
               check("clfftSetResultLocation", clfftSetResultLocation(*plan, CLFFT_OUTOFPLACE)) ||
               check("clfftSetPlanBatchSize", clfftSetPlanBatchSize(*plan, batch));
  if (dim == CLFFT_1D && !failed) {
    failed = check("clfftSetPlanDistance", clfftSetPlanDistance(*plan, lengths[0], lengths[0]));
  }
  return failed || check("clfftBakePlan", clfftBakePlan(*plan, 1, &q, NULL, NULL));
}

// One transform (dimension 1 or 2, lengths[], batch): forward from `input`
// into a second buffer, read; the inverse back into `input`, read; both
// printed.
static int forward_and_inverse(cl_context ctx, cl_command_queue q, const char* name, clfftDim dim,
                               const size_t* lengths, size_t batch) {
  const size_t points = lengths[0] * (dim == CLFFT_2D ? lengths[1] : 1) * batch;
  const size_t floats = 2 * points;
  float* host = malloc(floats * sizeof(float));
  for (size_t i = 0; i < points; ++i) {
    host[2 * i] = sinf(0.01f * (float)i) + (float)(i % 17) * 0.0625f;
    host[2 * i + 1] = (float)((i * 5) % 9) * 0.125f - 0.5f;
  }
  cl_int err;
  cl_mem input = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, floats * sizeof(float), host, &err);
  cl_mem output = clCreateBuffer(ctx, CL_MEM_READ_WRITE, floats * sizeof(float), NULL, &err);
  // One plan both ways, the inverse writing back over the input: every plan
  // is one more generated program to build (seconds each on PoCL, twice
  // under a split), and clFFT 2.12 asserts when a baked plan is changed and
  // baked again.
  clfftPlanHandle plan;
  int failed = make_plan(ctx, q, dim, lengths, batch, &plan) ||
               check("forward", clfftEnqueueTransform(plan, CLFFT_FORWARD, 1, &q, 0, NULL, NULL, &input, &output,
                                                      NULL)) ||
               check("read forward",
                     clEnqueueReadBuffer(q, output, CL_TRUE, 0, floats * sizeof(float), host, 0, NULL, NULL));
  if (!failed) {
    char label[64];
    snprintf(label, sizeof label, "%s forward", name);
    print_result(label, host, floats);
  }
  failed = failed ||
           check("inverse",
                 clfftEnqueueTransform(plan, CLFFT_BACKWARD, 1, &q, 0, NULL, NULL, &output, &input, NULL)) ||
           check("read inverse",
                 clEnqueueReadBuffer(q, input, CL_TRUE, 0, floats * sizeof(float), host, 0, NULL, NULL));
  if (!failed) {
    char label[64];
    snprintf(label, sizeof label, "%s round trip", name);
    print_result(label, host, floats);
  }
  clfftDestroyPlan(&plan);
  clReleaseMemObject(input);
  clReleaseMemObject(output);
  free(host);
  return failed;
}

int main(int argc, char** argv) {
  const size_t length_1d = argc > 1 ? (size_t)atoi(argv[1]) : 960;
  const size_t lengths_2d[2] = {argc > 2 ? (size_t)atoi(argv[2]) : 120, argc > 3 ? (size_t)atoi(argv[3]) : 64};
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS) {
    fprintf(stderr, "no OpenCL device\n");
    return 1;
  }
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  clfftSetupData setup;
  if (check("clfftInitSetupData", clfftInitSetupData(&setup)) || check("clfftSetup", clfftSetup(&setup))) return 1;
  int failed = forward_and_inverse(ctx, q, "1d", CLFFT_1D, &length_1d, 8);
  failed |= forward_and_inverse(ctx, q, "2d", CLFFT_2D, lengths_2d, 1);
  clfftTeardown();
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return failed;
}
