// Indirect reads through an index buffer (region analysis cannot bound them).
// LAUNCH kernel=gather global=128 local=16
// ARG idx buffer uint 128 random ro
// ARG src buffer float 1000 random ro
// ARG dst buffer float 128 zero
__kernel void gather(__global const uint* idx, __global const float* src, __global float* dst) {
  size_t i = get_global_id(0);
  dst[i] = src[idx[i]] + src[i];
}
