// Packed lower-triangular rows: row i starts at i*(i+1)/2 (non-affine in i,
// affine in the loop), plus a clamp to the last row.
// LAUNCH kernel=packed global=16 local=4
// ARG tri buffer float 136 random ro
// ARG rowsum buffer float 16 zero
// ARG last scalar int 15
__kernel void packed(__global const float* tri, __global float* rowsum, int last) {
  int i = min((int)get_global_id(0), last);
  int start = i * (i + 1) / 2;
  float s = 0.0f;
  for (int j = 0; j <= i; ++j) s += tri[start + j];
  rowsum[i] = s;
}
