// spmv: y = A x for a sparse matrix in CSR form, one work-item per row.
// Row i holds 1 + (max_nnz-1) * (i/n)^2 entries, so rows grow denser toward
// the end of the range and the work per work-group is very uneven.
#include <stdlib.h>

#include "bench.h"

#define CL_SOURCE(...) #__VA_ARGS__
static const char* kSource = CL_SOURCE(
__kernel void spmv_csr(__global float* y, __global const int* row_start,
                       __global const int* col, __global const float* val,
                       __global const float* x, int rows) {
  int row = get_global_id(0);
  if (row >= rows) return;
  float sum = 0.0f;
  for (int k = row_start[row]; k < row_start[row + 1]; ++k) sum += val[k] * x[col[k]];
  y[row] = sum;
}
);

int main(int argc, char** argv) {
  bench_options opts = bench_parse_args(argc, argv, "spmv", 10);
  const int rows = BENCH_PRESET(opts, 32768, 262144, 1048576);
  const int max_nnz = BENCH_PRESET(opts, 64, 128, 192);
  int* row_start = malloc(((size_t)rows + 1) * sizeof(int));
  row_start[0] = 0;
  for (int i = 0; i < rows; ++i) {
    double f = (double)i / rows;
    row_start[i + 1] = row_start[i] + 1 + (int)((max_nnz - 1) * f * f);
  }
  const size_t nnz = (size_t)row_start[rows];
  int* col = malloc(nnz * sizeof(int));
  float* val = malloc(nnz * sizeof(float));
  float* x = malloc((size_t)rows * sizeof(float));
  float* y = malloc((size_t)rows * sizeof(float));
  bench_fill(val, nnz, 171, -1, 1);
  bench_fill(x, rows, 172, -1, 1);
  // Columns: a band around the diagonal plus scattered far entries.
  unsigned state = 12345u;
  for (int i = 0; i < rows; ++i)
    for (int k = row_start[i]; k < row_start[i + 1]; ++k) {
      state = state * 1664525u + 1013904223u;
      int c = (k & 3) == 3 ? (int)(state % (unsigned)rows)
                           : i + (int)(state % 2048u) - 1024;
      col[k] = c < 0 ? c + rows : c >= rows ? c - rows : c;
    }

  bench_cl cl = bench_open(opts.device);
  cl_program program = bench_build(cl.context, cl.device, kSource, "");
  cl_kernel k = bench_kernel(program, "spmv_csr");
  const cl_mem_flags in = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  cl_mem buf_row = bench_buffer(cl.context, in, ((size_t)rows + 1) * sizeof(int), row_start);
  cl_mem buf_col = bench_buffer(cl.context, in, nnz * sizeof(int), col);
  cl_mem buf_val = bench_buffer(cl.context, in, nnz * sizeof(float), val);
  cl_mem buf_x = bench_buffer(cl.context, in, (size_t)rows * sizeof(float), x);
  cl_mem buf_y = bench_buffer(cl.context, CL_MEM_WRITE_ONLY, (size_t)rows * sizeof(float), NULL);
  BENCH_ARG(k, 0, buf_y);
  BENCH_ARG(k, 1, buf_row);
  BENCH_ARG(k, 2, buf_col);
  BENCH_ARG(k, 3, buf_val);
  BENCH_ARG(k, 4, buf_x);
  BENCH_ARG(k, 5, rows);

  const size_t local = 64, global = bench_round_up(rows, local);
  double* iter_ms = malloc(opts.iters * sizeof(double));
  double start = bench_now_ms();
  for (int it = 0; it < opts.iters; ++it) {
    double t0 = bench_now_ms();
    BENCH_CL(clEnqueueNDRangeKernel(cl.queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
    BENCH_CL(clFinish(cl.queue));
    iter_ms[it] = bench_now_ms() - t0;
  }
  double total_ms = bench_now_ms() - start;
  BENCH_CL(clEnqueueReadBuffer(cl.queue, buf_y, CL_TRUE, 0, (size_t)rows * sizeof(float), y, 0, NULL, NULL));

  int ok = 1;
  if (opts.check) {
    float* ref = malloc((size_t)rows * sizeof(float));
    for (int i = 0; i < rows; ++i) {
      float sum = 0.0f;
      for (int kk = row_start[i]; kk < row_start[i + 1]; ++kk) sum += val[kk] * x[col[kk]];
      ref[i] = sum;
    }
    // Signed terms cancel: the absolute tolerance follows the row length.
    ok = bench_compare("y", y, ref, rows, 1e-3, 1e-5 * max_nnz);
    free(ref);
  }
  int status = bench_finish(&opts, iter_ms, opts.iters, total_ms, ok);

  cl_mem buffers[] = {buf_row, buf_col, buf_val, buf_x, buf_y};
  for (size_t i = 0; i < sizeof buffers / sizeof *buffers; ++i) clReleaseMemObject(buffers[i]);
  clReleaseKernel(k);
  clReleaseProgram(program);
  bench_close(&cl);
  free(row_start); free(col); free(val); free(x); free(y); free(iter_ms);
  return status;
}
