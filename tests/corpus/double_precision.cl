// Double precision arithmetic and a per-group partial dot product.
// LAUNCH kernel=ddot global=128 local=16
// TAGS barrier local
// BUILD -DLSIZE=16
// ARG x buffer double 128 random ro
// ARG y buffer double 128 random ro
// ARG partial buffer double 8 zero
// ARG z buffer double 128 zero
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void ddot(__global const double* x, __global const double* y, __global double* partial,
                   __global double* z) {
  __local double tmp[LSIZE];
  size_t i = get_global_id(0), lid = get_local_id(0);
  double p = x[i] * y[i];
  z[i] = p + 1.0;
  tmp[lid] = p;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    double s = 0.0;
    for (int j = 0; j < LSIZE; ++j) s += tmp[j];
    partial[get_group_id(0)] = s;
  }
}
