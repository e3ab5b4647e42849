// Naive matrix multiply C = A * B, 2D NDRange, size from a -D option.
// LAUNCH kernel=matmul global=32,32 local=8,8
// BUILD -DN=32
// ARG a buffer float 1024 random ro
// ARG b buffer float 1024 random ro
// ARG c buffer float 1024 zero
__kernel void matmul(__global const float* a, __global const float* b, __global float* c) {
  int col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (int k = 0; k < N; ++k) acc += a[row * N + k] * b[k * N + col];
  c[row * N + col] = acc;
}
