// Three levels of helpers; only the innermost calls a rewritten builtin;
// pointers passed down to the helpers that read and write through them.
// LAUNCH kernel=nested global=32,8 local=4,4
// ARG src buffer int 256 random ro
// ARG dst buffer int 256 zero
int level3(int d) { return (int)get_group_id(d) + 10 * (int)get_num_groups(d); }
int level2(__global const int* p, int i) { return p[i] + level3(0) * 1000 + level3(1); }
void level1(__global const int* src, __global int* dst, int i) { dst[i] = level2(src, i) - 1; }
int untouched(int v) { return v + 1; }  // needs no ctx

__kernel void nested(__global const int* src, __global int* dst) {
  int i = get_global_id(1) * get_global_size(0) + get_global_id(0);
  level1(src, dst, untouched(i) - 1);
}
