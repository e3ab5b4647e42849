// Sparse matrix-vector product in CSR form: the loop bounds come from the
// row pointers and the column from an index buffer (resolved at launch from
// the buffers' contents). The random row pointers are not sorted: rows are
// empty where row[i+1] <= row[i], which the regions must still cover.
// LAUNCH kernel=spmv global=256 local=16
// ARG y buffer float 256 zero
// ARG row buffer int 257 random ro
// ARG col buffer int 1000 random ro
// ARG val buffer float 1000 random ro
// ARG x buffer float 1000 random ro
__kernel void spmv(__global float* y, __global const int* row, __global const int* col,
                   __global const float* val, __global const float* x) {
  int i = get_global_id(0);
  float s = 0.0f;
  for (int k = row[i]; k < row[i + 1]; ++k) s += val[k] * x[col[k]];
  y[i] = s;
}
