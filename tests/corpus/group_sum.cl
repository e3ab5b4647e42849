// Per-work-group reduction in local memory: out[get_group_id(0)].
// LAUNCH kernel=group_sum global=512 local=32
// TAGS barrier local
// ARG in buffer int 512 random ro
// ARG out buffer int 16 zero
// ARG scratch local int 32
__kernel void group_sum(__global const int* in, __global int* out, __local int* scratch) {
  size_t lid = get_local_id(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[get_group_id(0)] = scratch[0];
}
