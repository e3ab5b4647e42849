// Structs: a particle array updated in place through a helper taking a
// struct pointer, plus a struct passed by value to the helper.
// LAUNCH kernel=advance_particles global=64 local=16
// ARG p buffer float 512 random
// ARG dt scalar float 0.25
typedef struct {
  float4 pos;
  float4 vel;
} Particle;

typedef struct {
  float dt;
  float damping;
} Params;

void advance(__global Particle* p, Params prm) {
  p->pos += p->vel * prm.dt;
  p->vel *= prm.damping;
}

__kernel void advance_particles(__global Particle* particles, float dt) {
  Params prm = {dt, 0.5f};
  advance(&particles[get_global_id(0)], prm);
}
