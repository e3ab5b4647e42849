// The app's own memory behind CL_MEM_USE_HOST_PTR buffers. On a device that
// shares the host's memory (CL_DEVICE_HOST_UNIFIED_MEMORY: CPU devices) that
// memory *is* the buffer, so an app may print results from its array after
// a blocking call or clFinish without reading or mapping (Rodinia's
// pathfinder does). The spec leaves this undefined; the native device makes
// it work, so libsplit keeps such memory current at every point where the
// app waits: each wait brings the bytes written on devices back into it.
#pragma once

#include "objects.h"

namespace libsplit {

// Whether a USE_HOST_PTR buffer of context ctx is such memory (a device of
// the app's context shares host memory).
bool app_reads_host_memory(cl_context ctx);

// Registers / forgets a store whose shadow is such memory.
void track_app_host_memory(BufferStore& s);
void untrack_app_host_memory(BufferStore& s);

// Called where the app's wait ended (clFinish, blocking commands,
// clWaitForEvents), on the app's thread with no lock held: every tracked
// store becomes valid on the host. Nothing to do (two atomic loads) when no
// store is tracked.
cl_int update_app_host_memory();

// A released buffer's last bytes could not reach the app's memory (the
// driver failed the copy): update_app_host_memory's next call returns err.
void note_lost_app_host_memory(cl_int err);

}  // namespace libsplit
