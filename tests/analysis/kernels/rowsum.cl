// Row sums: a loop over a row with a symbolic trip count.
// LAUNCH kernel=rowsum global=48 local=8
// ARG m buffer float 960 random ro
// ARG out buffer float 48 zero
// ARG cols scalar int 20
__kernel void rowsum(__global const float* m, __global float* out, int cols) {
  int r = get_global_id(0);
  float s = 0;
  for (int c = 0; c < cols; ++c) s += m[r * cols + c];
  out[r] = s;
}
