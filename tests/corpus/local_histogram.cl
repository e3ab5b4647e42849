// Per-work-group histogram with LOCAL atomics (splittable: the atomics never
// touch global memory); bins of group g go to out[g*BINS ...].
// LAUNCH kernel=histo global=256 local=32
// TAGS barrier local
// BUILD -DBINS=16
// ARG data buffer uint 256 random ro
// ARG out buffer uint 128 zero
__kernel void histo(__global const uint* data, __global uint* out) {
  __local uint bins[BINS];
  uint lid = get_local_id(0);
  if (lid < BINS) bins[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&bins[data[get_global_id(0)] % BINS]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < BINS) out[get_group_id(0) * BINS + lid] = bins[lid];
}
