// 1D blur with a halo read through local memory and clamped edges.
// LAUNCH kernel=blur1d global=96 local=16
// TAGS barrier local
// ARG in buffer float 96 random ro
// ARG out buffer float 96 zero
// ARG tile local float 18
// ARG n scalar int 96
__kernel void blur1d(__global const float* in, __global float* out, __local float* tile, int n) {
  int g = get_global_id(0), l = get_local_id(0), ls = get_local_size(0);
  tile[l + 1] = in[g];
  if (l == 0) tile[0] = in[max(g - 1, 0)];
  if (l == ls - 1) tile[l + 2] = in[min(g + 1, n - 1)];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[g] = (tile[l] + tile[l + 1] + tile[l + 2]) / 3.0f;
}
