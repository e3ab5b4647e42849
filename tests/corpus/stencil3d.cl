// 7-point 3D stencil (interior only; borders copied), 3D NDRange.
// LAUNCH kernel=stencil3d global=16,8,8 local=4,4,2
// ARG in buffer float 1024 random ro
// ARG out buffer float 1024 zero
__kernel void stencil3d(__global const float* in, __global float* out) {
  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  int nx = get_global_size(0), ny = get_global_size(1), nz = get_global_size(2);
  int i = (z * ny + y) * nx + x;
  if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = 0.25f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
                                     in[i - nx * ny] + in[i + nx * ny]);
}
