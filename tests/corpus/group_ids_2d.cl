// Writes the full-launch group ids and group counts of both dimensions from
// a helper reached only through a macro.
// LAUNCH kernel=ids2d global=24,20 local=4,5
// ARG out buffer int4 480 zero
int4 describe(void) {
  return (int4)((int)get_group_id(0), (int)get_group_id(1), (int)get_num_groups(0),
                (int)get_num_groups(1));
}
#define DESCRIBE() describe()
__kernel void ids2d(__global int4* out) {
  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = DESCRIBE();
}
