// Tiled 2D transpose through local memory with a barrier.
// LAUNCH kernel=transpose global=32,16 local=8,8
// TAGS barrier local
// BUILD -DTILE=8
// ARG in buffer float 512 random ro
// ARG out buffer float 512 zero
// ARG w scalar int 32
// ARG h scalar int 16
__kernel void transpose(__global const float* in, __global float* out, int w, int h) {
  __local float tile[TILE][TILE + 1];
  int lx = get_local_id(0), ly = get_local_id(1);
  int gx = get_group_id(0) * TILE, gy = get_group_id(1) * TILE;
  tile[ly][lx] = in[(gy + ly) * w + gx + lx];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[(gx + ly) * h + gy + lx] = tile[lx][ly];
}
