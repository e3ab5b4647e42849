// 1D launch with a global offset; indices relative to get_global_offset.
// LAUNCH kernel=shifted global=128 local=16 offset=48
// ARG in buffer int 200 iota ro
// ARG out buffer int 200 zero
__kernel void shifted(__global const int* in, __global int* out) {
  size_t g = get_global_id(0);
  size_t rel = g - get_global_offset(0);
  out[g] = in[g] * 2 + (int)rel + (int)get_global_offset(0) * 1000;
}
