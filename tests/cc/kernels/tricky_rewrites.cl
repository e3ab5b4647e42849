// Rewrite corner cases: a kernel prototype before its definition, kernel
// parameters from a macro, overloaded helpers (only one overload needs the
// ctx), static helpers, nested calls f(g(x)) that both need the ctx, calls in
// a for header and a ternary, a helper whose name is also a macro argument.
// LAUNCH kernel=tricky global=48,8 local=8,2
// ARG out buffer int 384 zero
// ARG bias scalar int 5
#define KERNEL_PARAMS __global int* out, int bias
#define APPLY(fn, x) fn(x)

__kernel void tricky(KERNEL_PARAMS);

int __attribute__((overloadable)) pick(int v) { return v + (int)get_group_id(0); }
int __attribute__((overloadable)) pick(float v) { return (int)v; }

static int rows(void) { return (int)get_num_groups(1); }
static int add_rows(int v) { return v + rows(); }

__kernel void tricky(KERNEL_PARAMS) {
  int x = get_global_id(0), y = get_global_id(1);
  int acc = 0;
  for (int i = 0; i < rows(); ++i) acc += add_rows(pick(i));
  acc += (x & 1) ? pick(1.5f) : APPLY(pick, y);
  acc += APPLY(add_rows, pick(add_rows(bias)));
  out[y * get_global_size(0) + x] = acc;
}
