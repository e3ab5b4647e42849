// Helpers for header_helpers.cl: one needs the full-launch group id (so
// libsplit-cc must inline this header into the partition-ready program),
// one does not.
#ifndef CORPUS_HELPERS_H
#define CORPUS_HELPERS_H

int full_group(uint d) { return (int)get_group_id(d) * 1000 + (int)get_num_groups(d); }

int plain_twice(int v) { return 2 * v; }

#endif
