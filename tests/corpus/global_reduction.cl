// Global atomics that are reductions: every update of `bins` is an
// atomic_inc whose result is unused, and `total` only gets atomic_add. Split
// with a private copy per device, combined after the launch (the corpus
// checks slices run one after the other on the same buffers).
// LAUNCH kernel=histogram global=256 local=16
// TAGS reduction atomics
// ARG in buffer uint 256 random ro
// ARG bins buffer uint 32 zero
// ARG total buffer ulong 1 iota
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
__kernel void histogram(__global const uint* in, __global uint* bins, __global ulong* total) {
  uint v = in[get_global_id(0)];
  atomic_inc(&bins[v % 32]);
  atom_add(total, (ulong)v);
}
