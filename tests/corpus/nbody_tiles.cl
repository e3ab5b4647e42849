// All-pairs interaction through local tiles: every work-item reads every
// position (whole-buffer reads), writes only its own acceleration.
// LAUNCH kernel=nbody global=64 local=16
// TAGS barrier local
// ARG pos buffer float4 64 random ro
// ARG acc buffer float4 64 zero
// ARG tile local float4 16
__kernel void nbody(__global const float4* pos, __global float4* acc, __local float4* tile) {
  size_t i = get_global_id(0), lid = get_local_id(0), lsz = get_local_size(0);
  float4 me = pos[i], a = (float4)(0.0f);
  for (size_t t = 0; t < get_num_groups(0); ++t) {
    tile[lid] = pos[t * lsz + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t j = 0; j < lsz; ++j) {
      float4 d = tile[j] - me;
      a += d * (d.x * d.x + d.y * d.y + d.z * d.z);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  acc[i] = a;
}
