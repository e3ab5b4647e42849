// get_group_id / get_num_groups used only inside helper functions, one of
// them nested, with a forward declaration and an f(void) prototype.
// LAUNCH kernel=tag_groups global=128 local=8
// ARG out buffer uint 128 zero
// ARG meta buffer uint 16 zero
uint group_index(void);
uint tagged(uint v);

uint group_index(void) { return (uint)get_group_id(0); }
uint tagged(uint v) { return v * 1000u + group_index() * 10u + (uint)get_num_groups(0); }

__kernel void tag_groups(__global uint* out, __global uint* meta) {
  size_t i = get_global_id(0);
  out[i] = tagged((uint)get_local_id(0));
  if (get_local_id(0) == 0) meta[group_index()] = (uint)get_global_size(0);
}
