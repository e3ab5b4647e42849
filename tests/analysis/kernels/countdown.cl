// Unsigned count-down loop and a row written by a 2D work-item guarded on y.
// LAUNCH kernel=countdown global=8,8 local=4,2
// ARG m buffer float 96 random
// ARG w scalar uint 12
// ARG rows scalar uint 7
__kernel void countdown(__global float* m, uint w, uint rows) {
  uint x = get_global_id(0), y = get_global_id(1);
  if (y >= rows || x != 0) return;
  for (uint k = w; k-- > 0;) m[y * w + k] = m[y * w + k] * 0.5f + (float)k;
}
