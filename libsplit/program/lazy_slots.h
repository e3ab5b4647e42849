// Platform slots without a device of the app's context get their program
// only when a probe or a split first wants one of their devices: on a GPU
// node the CPU's build of it cost a fresh machine's first run 1.1 s, waited
// for at exit, and most programs never run there. Each such slot is a small
// state machine (_cl_program::LazySlot, under prep_mutex): Deferred (its
// device binaries are not cached: the build waits until the run is long
// enough to pay for it from the exploration budget, or a split needs the
// device) -> Pending -> Building (in the background, or in a launch that
// waits; a GPU's from the moment its context opens when a launch wanted it
// while it opened) -> Built (held in lazy_built) -> None once a launch took it into
// per_platform; or Failed (the program's launches run whole from then on).
#pragma once

#include "objects.h"

#include <vector>

namespace libsplit {

// At adoption (per_platform and lazy_source set): every slot left without a
// program becomes Pending when its binaries are `cached`, else Deferred;
// builds of an earlier adoption not taken yet are dropped.
void set_lazy_slots(cl_program p, std::vector<bool> cached);

// The program of a lazy slot (under the exec lock): taken when built;
// else, with `wait`, built here or waited for; else its background build
// is started (a Deferred slot only when `wanted` by a split or paid from the
// exploration budget) and the answer is null for now.
cl_program take_lazy_slot(cl_program p, unsigned slot, bool wait, bool wanted = false);

// A slot whose context the background thread is opening now (a GPU a split
// will want): its build starts in the background the moment it opens, rather
// than at the first launch after (which then ran whole, and the next one
// too while the build ran). Nothing when the slot is not lazy, already
// building or built, or stops opening first (then it stays as it was).
void build_once_open(cl_program p, unsigned slot);

}  // namespace libsplit
