// Work-group tiles moved with async copies: global->local contiguous, then
// local->global strided (a column of a 16-wide row-major output per group).
// LAUNCH kernel=async_tile global=64 local=16
// TAGS barrier local
// ARG in buffer float4 64 random ro
// ARG out buffer float 256 zero
// ARG tile local float4 16
// ARG col local float 16
// ARG n scalar int 16
__kernel void async_tile(__global const float4* in, __global float* out, __local float4* tile,
                         __local float* col, int n) {
  size_t g = get_group_id(0), l = get_local_id(0);
  event_t e = async_work_group_copy(tile, in + g * 16, 16, 0);
  wait_group_events(1, &e);
  col[l] = tile[l].x + tile[l].y + tile[l].z + tile[l].w;
  barrier(CLK_LOCAL_MEM_FENCE);
  event_t e2 = async_work_group_strided_copy(out + g, col, n, 4, 0);
  wait_group_events(1, &e2);
}
