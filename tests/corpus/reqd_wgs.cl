// reqd_work_group_size and a -D driven #if; the slice must keep the local size.
// LAUNCH kernel=fixed_wg global=128 local=16
// BUILD -DUSE_SQUARE -DOFFSET=3
// ARG a buffer int 128 random ro
// ARG out buffer int 128 zero
__kernel __attribute__((reqd_work_group_size(16, 1, 1)))
void fixed_wg(__global const int* a, __global int* out) {
  int i = get_global_id(0);
#ifdef USE_SQUARE
  out[i] = a[i] * a[i] + OFFSET + (int)get_group_id(0);
#else
  out[i] = a[i];
#endif
}
