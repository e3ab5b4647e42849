// Helpers from a user header found through -I, one of them calling
// get_group_id / get_num_groups (the header is inlined when rewritten).
// LAUNCH kernel=from_header global=16,12 local=4,3
// BUILD -I$DIR/include
// ARG out buffer int 192 zero
#include "corpus_helpers.h"

__kernel void from_header(__global int* out) {
  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
  out[i] = full_group(0) + plain_twice(full_group(1));
}
