// Global atomics: a counter shared by every work-group. Not splittable
// (libsplit-cc must say so); the corpus still checks the unsplit run.
// LAUNCH kernel=count_positive global=128 local=16
// TAGS nosplit atomics
// ARG in buffer float 128 random ro
// ARG counter buffer int 1 zero
__kernel void count_positive(__global const float* in, __global int* counter) {
  if (in[get_global_id(0)] > 0.0f) atomic_add(counter, 1);
}
