// Element-wise vector add, 1D, builtin get_global_id only.
// LAUNCH kernel=vadd global=256 local=16
// ARG a buffer float 256 random ro
// ARG b buffer float 256 random ro
// ARG c buffer float 256 zero
// ARG n scalar int 256
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
