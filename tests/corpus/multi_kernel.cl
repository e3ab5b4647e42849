// A program with several kernels (one with (void), one with ()), sharing a
// helper that uses get_group_id; kernel-to-kernel call.
// LAUNCH kernel=outer global=64 local=8
// ARG out buffer int 64 zero
// ARG scale scalar int 7
int group_base(int scale) { return (int)get_group_id(0) * scale; }

__kernel void noop(void) {}
__kernel void noop2() {}

__kernel void inner(__global int* out, int scale) {
  out[get_global_id(0)] += group_base(scale) + (int)get_num_groups(0);
}

__kernel void outer(__global int* out, int scale) {
  out[get_global_id(0)] = (int)get_local_id(0);
  inner(out, scale);
}
