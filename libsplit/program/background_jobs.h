// The background jobs of program preparation (program_prep.h) and the app's
// end: a driver torn down under a running build crashes, so the jobs are
// counted, stop at their next step once the app ends, and the process waits
// for the step under way (bounded).
#pragma once

#include "objects.h"

#include <functional>

namespace libsplit {

// Runs `job` on a thread of its own holding a reference to p; before_exit
// waits for it.
void run_background_job(cl_program p, std::function<void()> job);

// True once the app is ending: background jobs make no further driver call.
bool app_exiting();

// Marks the calling thread as a background job's that now builds what no
// launch waits for (the partition-ready program, lazy slots): its builds
// from source go to libsplit-build (build_client.h), which the app's exit
// can stop. Builds the app waits for (the originals of its first launches,
// synchronous preparation, a split wanting a device now) stay in the app's
// process: a helper costs a process start and a driver initialisation on top.
void become_background_build();
bool in_background_build();

// The app is about to exit (process_exit.cpp): background preparations stop
// at their next step and the process waits for the step under way (bounded).
void before_exit();

}  // namespace libsplit
