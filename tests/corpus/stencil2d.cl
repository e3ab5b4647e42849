// 5-point 2D stencil with clamped borders; writes its own row block.
// LAUNCH kernel=stencil2d global=32,24 local=8,4
// ARG in buffer float 768 random ro
// ARG out buffer float 768 zero
// ARG w scalar int 32
// ARG h scalar int 24
__kernel void stencil2d(__global const float* in, __global float* out, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  int xl = max(x - 1, 0), xr = min(x + 1, w - 1);
  int yu = max(y - 1, 0), yd = min(y + 1, h - 1);
  out[y * w + x] = 0.5f * in[y * w + x] +
                   0.125f * (in[y * w + xl] + in[y * w + xr] + in[yu * w + x] + in[yd * w + x]);
}
