// 2D coordinates normalized by get_global_size, with an offset in dim 1.
// LAUNCH kernel=coords global=16,16 local=4,8 offset=0,8
// ARG out buffer float2 512 zero
__kernel void coords(__global float2* out) {
  size_t x = get_global_id(0), y = get_global_id(1);
  out[y * get_global_size(0) + x] =
      (float2)((float)x / (float)get_global_size(0),
               (float)(y - get_global_offset(1)) / (float)get_global_size(1));
}
