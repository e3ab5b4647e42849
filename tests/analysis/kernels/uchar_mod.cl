// Narrow types: uchar data, an index wrapped with % and a short stride.
// LAUNCH kernel=uchar_mod global=64 local=16
// ARG in buffer uchar 256 random ro
// ARG out buffer uchar 64 zero
// ARG stride scalar short 3
__kernel void uchar_mod(__global const uchar* in, __global uchar* out, short stride) {
  int i = get_global_id(0);
  out[i] = in[(i * stride) % 256] + in[(uchar)(i + 200)];
}
