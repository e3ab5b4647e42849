// n-body step: every work-item reads all bodies, writes its own.
// LAUNCH kernel=nbody global=64 local=16
// ARG pos buffer float4 64 random ro
// ARG vel buffer float4 64 random
// ARG newpos buffer float4 64 zero
// ARG n scalar int 64
// ARG dt scalar float 0.125
__kernel void nbody(__global const float4* pos, __global float4* vel, __global float4* newpos, int n, float dt) {
  int i = get_global_id(0);
  float4 p = pos[i], a = (float4)(0.0f);
  for (int j = 0; j < n; ++j) {
    float4 d = pos[j] - p;
    float r2 = d.x * d.x + d.y * d.y + d.z * d.z + 0.5f;
    a += d * (pos[j].w / (r2 * r2));
  }
  float4 v = vel[i] + a * dt;
  vel[i] = v;
  newpos[i] = p + v * dt;
}
