// Triangular loop (bound depends on the id) and a strided write.
// LAUNCH kernel=triangle global=32 local=8
// ARG a buffer int 32 iota ro
// ARG prefix buffer int 64 zero
__kernel void triangle(__global const int* a, __global int* prefix) {
  int i = get_global_id(0);
  int s = 0;
  for (int j = 0; j <= i; ++j) s += a[j];
  prefix[2 * i] = s;
  prefix[2 * i + 1] = -s;
}
