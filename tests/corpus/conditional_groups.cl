// Only even work-groups write; odd ones leave the output untouched.
// LAUNCH kernel=even_groups global=128 local=8
// ARG out buffer int 128 random
__kernel void even_groups(__global int* out) {
  if (get_group_id(0) % 2 == 0) out[get_global_id(0)] = -(int)get_group_id(0);
}
