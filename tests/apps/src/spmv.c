/* spmv: sparse matrix-vector products in CSR form, iterated.
 * Covers: data-dependent loop bounds (row_ptr[i] .. row_ptr[i+1]) and
 * indirect reads (x[col[j]]) that no region analysis can bound, iterated
 * y = A x with ping-pong vectors (10 launches), a structure-of-arrays
 * output where each work-item writes out[i], out[n + i] and out[2n + i],
 * and a program-scope __constant table. Integer data: exact results. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "app_common.h"

static const char* kSource =
    "__constant int kWeights[4] = {1, -2, 3, -1};\n"
    "__kernel void csr_spmv(__global const int* row_ptr, __global const int* col,\n"
    "                       __global const int* val, __global const int* x,\n"
    "                       __global int* y, int rows) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i >= rows) return;\n"
    "  int acc = 0;\n"
    "  for (int j = row_ptr[i]; j < row_ptr[i + 1]; ++j) acc += val[j] * x[col[j]];\n"
    "  y[i] = (acc % 1000) + kWeights[i & 3];\n"
    "}\n"
    "__kernel void soa_stats(__global const int* row_ptr, __global int* out, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  int len = row_ptr[i + 1] - row_ptr[i];\n"
    "  out[i] = len;\n"
    "  out[n + i] = row_ptr[i];\n"
    "  out[2 * n + i] = len * kWeights[i % 4];\n"
    "}\n";

enum { ROWS = 3000, MAX_PER_ROW = 12, ITER = 10 };

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel spmv, soa;
  static cl_int row_ptr[ROWS + 1], col[ROWS * MAX_PER_ROW], val[ROWS * MAX_PER_ROW];
  static cl_int x[ROWS], stats[3 * ROWS];
  cl_mem brow, bcol, bval, bx[2], bstats;
  cl_int rows = ROWS, nnz = 0;
  size_t global = 3072, local = 64, g2 = ROWS;
  int i, j, it;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, NULL);
  spmv = app_kernel(prog, "csr_spmv");
  soa = app_kernel(prog, "soa_stats");

  for (i = 0; i < ROWS; ++i) {
    /* Uneven rows: some empty, some full. */
    int len = (int)(app_rand() % (MAX_PER_ROW + 1));
    row_ptr[i] = nnz;
    for (j = 0; j < len; ++j) {
      col[nnz] = (cl_int)(app_rand() % ROWS);
      val[nnz] = (cl_int)(app_rand() % 7) - 3;
      ++nnz;
    }
    x[i] = (cl_int)(app_rand() % 100u);
  }
  row_ptr[ROWS] = nnz;
  app_print("nnz", nnz);

  brow = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof row_ptr, row_ptr,
                        &err);
  CHECK_ERR(err);
  bcol = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nnz * sizeof(cl_int), col,
                        &err);
  CHECK_ERR(err);
  bval = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nnz * sizeof(cl_int), val,
                        &err);
  CHECK_ERR(err);
  bx[0] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
  CHECK_ERR(err);
  bx[1] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof x, NULL, &err);
  CHECK_ERR(err);
  bstats = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof stats, NULL, &err);
  CHECK_ERR(err);

  CHECK(clSetKernelArg(spmv, 0, sizeof brow, &brow));
  CHECK(clSetKernelArg(spmv, 1, sizeof bcol, &bcol));
  CHECK(clSetKernelArg(spmv, 2, sizeof bval, &bval));
  CHECK(clSetKernelArg(spmv, 5, sizeof rows, &rows));
  for (it = 0; it < ITER; ++it) {
    CHECK(clSetKernelArg(spmv, 3, sizeof(cl_mem), &bx[it % 2]));
    CHECK(clSetKernelArg(spmv, 4, sizeof(cl_mem), &bx[(it + 1) % 2]));
    CHECK(clEnqueueNDRangeKernel(q, spmv, 1, NULL, &global, &local, 0, NULL, NULL));
  }
  CHECK(clEnqueueReadBuffer(q, bx[ITER % 2], CL_TRUE, 0, sizeof x, x, 0, NULL, NULL));
  app_dump("x_final", x, sizeof x);

  CHECK(clSetKernelArg(soa, 0, sizeof brow, &brow));
  CHECK(clSetKernelArg(soa, 1, sizeof bstats, &bstats));
  CHECK(clSetKernelArg(soa, 2, sizeof rows, &rows));
  CHECK(clEnqueueNDRangeKernel(q, soa, 1, NULL, &g2, NULL, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bstats, CL_TRUE, 0, sizeof stats, stats, 0, NULL, NULL));
  app_dump("soa", stats, sizeof stats);

  clReleaseMemObject(brow);
  clReleaseMemObject(bcol);
  clReleaseMemObject(bval);
  clReleaseMemObject(bx[0]);
  clReleaseMemObject(bx[1]);
  clReleaseMemObject(bstats);
  clReleaseKernel(spmv);
  clReleaseKernel(soa);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}
