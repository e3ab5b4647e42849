// Global atomics that are no reduction: compare-and-exchange "first writer"
// flags (the value stored is the same whoever wins). Not splittable
// (libsplit-cc must say so); the corpus still checks the unsplit run.
// LAUNCH kernel=mark_seen global=128 local=16
// TAGS nosplit atomics
// ARG in buffer uint 128 random ro
// ARG seen buffer int 64 zero
__kernel void mark_seen(__global const uint* in, __global int* seen) {
  uint key = in[get_global_id(0)] % 64;
  atomic_cmpxchg(&seen[key], 0, (int)key + 1);
}
