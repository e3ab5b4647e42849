// Hillis-Steele inclusive scan per work-group in local memory, plus the
// block totals at sums[get_group_id(0)].
// LAUNCH kernel=block_scan global=256 local=32
// TAGS barrier local
// ARG in buffer int 256 random ro
// ARG out buffer int 256 zero
// ARG sums buffer int 8 zero
// ARG buf local int 64
__kernel void block_scan(__global const int* in, __global int* out, __global int* sums,
                         __local int* buf) {
  int lid = get_local_id(0), n = get_local_size(0);
  int src = 0;
  buf[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < n; off *= 2) {
    int dst = 1 - src;
    int v = buf[src * n + lid];
    if (lid >= off) v += buf[src * n + lid - off];
    buf[dst * n + lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    src = dst;
  }
  out[get_global_id(0)] = buf[src * n + lid];
  if (lid == n - 1) sums[get_group_id(0)] = buf[src * n + lid];
}
