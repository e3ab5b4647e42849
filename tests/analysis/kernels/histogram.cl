// Histogram with atomics through a data-dependent index, plus a guarded tail.
// LAUNCH kernel=histogram global=64 local=16
// ARG in buffer uint 64 random ro
// ARG bins buffer uint 16 zero
// ARG n scalar uint 60
__kernel void histogram(__global const uint* in, __global volatile uint* bins, uint n) {
  uint i = get_global_id(0);
  if (i < n) atomic_inc(&bins[in[i] % 16]);
}
