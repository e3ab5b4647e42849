// vload4/vstore4 with an offset argument.
// LAUNCH kernel=vec4scale global=32 local=8
// ARG a buffer float 160 random ro
// ARG b buffer float 160 zero
// ARG base scalar int 4
__kernel void vec4scale(__global const float* a, __global float* b, int base) {
  size_t i = get_global_id(0);
  vstore4(vload4(i + base, a) * 2.0f, i + base, b);
}
