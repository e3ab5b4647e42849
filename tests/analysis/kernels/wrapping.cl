// Unsigned index arithmetic that wraps on purpose (defined for uint), folded
// back with a mask; and a != loop from the id up to a bound.
// LAUNCH kernel=wrapping global=64 local=16
// ARG a buffer int 64 iota ro
// ARG b buffer int 64 zero
// ARG n scalar int 64
__kernel void wrapping(__global const int* a, __global int* b, int n) {
  uint g = get_global_id(0);
  uint h = g * 0x10000001u + 0xFFFFFFF0u;  // wraps for every g > 0
  int s = 0;
  for (int j = (int)g; j != n; ++j) s += a[j];
  b[h & 63] = s + a[(h + 16u) & 63];
}
