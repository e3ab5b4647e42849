// Transpose: reads by rows, writes by columns.
// LAUNCH kernel=transpose global=16,8 local=4,4
// ARG in buffer float 128 random ro
// ARG out buffer float 128 zero
// ARG w scalar uint 16
// ARG h scalar uint 8
__kernel void transpose(__global const float* in, __global float* out, uint w, uint h) {
  uint x = get_global_id(0), y = get_global_id(1);
  if (x < w && y < h) out[x * h + y] = in[y * w + x];
}
