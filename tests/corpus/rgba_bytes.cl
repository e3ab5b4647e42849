// uchar4 pixels to grey bytes, 2D.
// LAUNCH kernel=grey global=16,16 local=8,4
// ARG rgba buffer uchar4 256 random ro
// ARG grey buffer uchar 256 zero
__kernel void grey(__global const uchar4* rgba, __global uchar* grey) {
  int i = get_global_id(1) * get_global_size(0) + get_global_id(0);
  uint4 p = convert_uint4(rgba[i]);
  grey[i] = (uchar)((p.x * 77u + p.y * 150u + p.z * 29u) >> 8);
}
