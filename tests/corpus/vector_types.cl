// Vector types: float4 arithmetic, vload4/vstore4 on a float buffer, and a
// uint2 scalar argument.
// LAUNCH kernel=vec_ops global=64 local=8
// ARG a buffer float4 64 random ro
// ARG b buffer float 256 random ro
// ARG out buffer float4 64 zero
// ARG flat buffer float 256 zero
// ARG k scalar uint2 3,5
__kernel void vec_ops(__global const float4* a, __global const float* b, __global float4* out,
                      __global float* flat, uint2 k) {
  size_t i = get_global_id(0);
  float4 v = vload4(i, b);
  float4 r = a[i] * (float)k.x + v.wzyx - (float4)((float)k.y);
  out[i] = r;
  vstore4(r * 0.5f + (float4)(1.0f, 2.0f, 3.0f, 4.0f), i, flat);
}
