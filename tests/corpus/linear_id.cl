// OpenCL C 2.0 get_global_linear_id in 2D with a global offset.
// LAUNCH kernel=linear global=16,12 local=4,3 offset=3,5
// BUILD -cl-std=CL2.0
// ARG out buffer uint2 192 zero
__kernel void linear(__global uint2* out) {
  size_t l = get_global_linear_id();
  out[l] = (uint2)((uint)get_global_id(0) * 100u + (uint)get_global_id(1), (uint)get_local_linear_id());
}
