// Tiled matrix multiply with local-memory tiles (as __local arguments).
// LAUNCH kernel=matmul_tiled global=32,16 local=8,8
// TAGS barrier local
// ARG a buffer float 384 random ro
// ARG b buffer float 768 random ro
// ARG c buffer float 512 zero
// ARG m scalar int 16
// ARG n scalar int 32
// ARG k scalar int 24
// ARG ta local float 64
// ARG tb local float 64
#define T 8
__kernel void matmul_tiled(__global const float* a, __global const float* b, __global float* c,
                           int m, int n, int k, __local float* ta, __local float* tb) {
  int col = get_global_id(0), row = get_global_id(1);
  int lx = get_local_id(0), ly = get_local_id(1);
  float acc = 0.0f;
  for (int t = 0; t < k; t += T) {
    ta[ly * T + lx] = a[row * k + t + lx];
    tb[ly * T + lx] = b[(t + ly) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < T; ++j) acc += ta[ly * T + j] * tb[j * T + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = acc;
}
