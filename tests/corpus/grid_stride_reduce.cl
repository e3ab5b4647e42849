// Per-work-group reduction over a grid-stride loop: each group reads the
// whole input at stride get_num_groups*local and writes out[get_group_id].
// LAUNCH kernel=grid_reduce global=64 local=8
// TAGS barrier local
// ARG in buffer int 1000 random ro
// ARG out buffer int 8 zero
// ARG n scalar int 1000
// ARG tmp local int 8
__kernel void grid_reduce(__global const int* in, __global int* out, int n, __local int* tmp) {
  int lid = (int)get_local_id(0), lsz = (int)get_local_size(0);
  int acc = 0;
  for (int i = (int)get_group_id(0) * lsz + lid; i < n; i += (int)get_num_groups(0) * lsz)
    acc += in[i];
  tmp[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    int s = 0;
    for (int j = 0; j < lsz; ++j) s += tmp[j];
    out[get_group_id(0)] = s;
  }
}
