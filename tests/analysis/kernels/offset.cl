// Launch with a global offset; index relative to it.
// LAUNCH kernel=offset global=40 local=8 offset=16
// ARG a buffer int 64 iota ro
// ARG b buffer int 64 zero
__kernel void offset(__global const int* a, __global int* b) {
  size_t i = get_global_id(0);
  size_t j = i - get_global_offset(0);
  b[i] = a[j] + (int)get_group_id(0);
}
