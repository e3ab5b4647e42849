// Writes only the interior of a grid: two-sided guards on both ids.
// LAUNCH kernel=interior global=16,12 local=4,4
// ARG a buffer float 192 random
// ARG w scalar int 16
// ARG h scalar int 12
__kernel void interior(__global float* a, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1) a[y * w + x] = 0.5f * a[y * w + x];
}
