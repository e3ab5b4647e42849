// A scatter through an index buffer: each slice writes inside the hull of
// its indices (resolved at launch); duplicates store the same value, so the
// result does not depend on which work-item wins.
// LAUNCH kernel=scatter global=512 local=32
// ARG idx buffer ushort 512 random ro
// ARG src buffer float 1000 random ro
// ARG out buffer float 1000 zero
__kernel void scatter(__global const ushort* idx, __global const float* src, __global float* out) {
  size_t i = get_global_id(0);
  ushort j = idx[i];
  out[j] = src[j] * 2.0f;
}
