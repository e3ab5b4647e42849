// Rewritten builtins used through user macros, and a ctx-needing helper
// called from inside a macro body and from a macro argument.
// LAUNCH kernel=macro_user global=96 local=8
// ARG out buffer int 96 zero
// ARG groups buffer int 12 zero
#define GRP ((int)get_group_id(0))
#define NGRP ((int)get_num_groups(0))
#define SCALE(x) ((x) * NGRP + GRP)
#define CALL_HELPER(v) helper(v)
#define TWICE(e) ((e) + (e))

int helper(int v) { return v * 3 + GRP; }

__kernel void macro_user(__global int* out, __global int* groups) {
  int i = (int)get_global_id(0);
  out[i] = SCALE(i) + CALL_HELPER(i) + TWICE(helper(1));
  if (get_local_id(0) == 0) groups[GRP] = NGRP * 100 + GRP;
}
