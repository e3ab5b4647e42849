// 3D NDRange with a global offset: records every full-launch value the
// partition-ready rewrite must preserve.
// LAUNCH kernel=ids3d global=8,4,6 local=2,2,3 offset=2,0,3
// ARG out buffer uint4 192 zero
__kernel void ids3d(__global uint4* out) {
  size_t x = get_global_id(0) - get_global_offset(0);
  size_t y = get_global_id(1) - get_global_offset(1);
  size_t z = get_global_id(2) - get_global_offset(2);
  size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;
  out[i] = (uint4)((uint)(get_group_id(0) + 100 * get_num_groups(0)),
                   (uint)(get_group_id(1) + 100 * get_num_groups(1)),
                   (uint)(get_group_id(2) + 100 * get_num_groups(2)),
                   (uint)(get_global_offset(0) + 10 * get_global_offset(1) + 100 * get_global_offset(2)));
}
