// Preparing an app program for execution on libsplit's devices: one state
// machine per program, driven by the app's builds and by the questions the
// launch path asks (executables.h), never by the launch path itself.
//
//   Source known (Mode::Unprepared; a program not from source, or
//     LIBSPLIT_SYNC_PREPARE=1): prepared at once, in the app's thread
//     (prepared_program.h), then Adopted.
//   Deferred (Mode::Preparing, prep_deferred): the app's own builds serve the
//     devices of its context (or the job built the originals and stopped);
//     the job starts once the program's launches have gone on for
//     LIBSPLIT_PREPARE_AFTER_MS (maybe_start_deferred, at a launch).
//   Preparing (Mode::Preparing, a background job): the original source is
//     built per platform slot of the app's context, each slot Ready as soon
//     as built (originals[slot]: its launches run whole on it, exactly what
//     the app alone would do); then libsplit-cc and the partition-ready
//     program.
//   Prepared (Mode::Preparing, `prepared` set): the job's answer, waiting
//     for the next launch.
//   Adopted (Mode::Compiled / Plain / Whole; Failed when nothing builds):
//     per_platform holds the program of each slot of the app's context; the
//     other slots build theirs when first wanted (lazy_slots.h: Deferred,
//     Pending, Building, Built, Failed).
// A new build of the app starts over (prep_generation makes an older job's
// answer stale); the app's end stops the jobs (background_jobs.h).
#pragma once

#include "objects.h"

namespace libsplit {

// After a successful app build (under the exec lock): source programs are
// prepared by a background job (LIBSPLIT_SYNC_PREPARE=1: at once), others at
// their first launch.
void start_preparation(cl_program p);

// Under the exec lock, for a launch from a queue whose device is runtime
// device `home` (executables.h asks): adopts a finished background
// preparation, starts a deferred one whose time has come, or waits until
// the program can at least run whole on `home`, or prepares at once.
void advance_preparation(cl_program p, unsigned home);

}  // namespace libsplit
