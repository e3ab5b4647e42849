// The device times of commands: device profiling clocks converted to the
// host's, the app event's START/END from the device work of its command, and
// which command runs on this thread. Launch threads measure a device's clock
// offset; driver callbacks only convert with a known one.
#pragma once

#include "objects.h"

#include <optional>

namespace libsplit {

// The app event of the command whose run() executes on this thread (null
// outside one): set by the queue machinery around run().
void set_running_command(cl_event e);

// Profiling: called by a command while it runs (on the thread running it)
// for each piece of device work, with the device's own profiling times
// (CL_PROFILING_COMMAND_START / END of the sub-launch on runtime device
// `device`). The app's event then reports START at the earliest start and
// END at the latest end, converted to the host clock; a command that reports
// nothing gets START/END around its host-side execution.
void report_device_span(unsigned device, cl_ulong device_start, cl_ulong device_end);
// The same for app event `e` (from a device completion callback, which must
// never wait on a queue): reports nothing unless the device's clock offset
// was measured before (device_to_host_ns on a launch thread).
void report_device_span(cl_event e, unsigned device, cl_ulong device_start, cl_ulong device_end);

// Whether anyone but libsplit holds the app event of the command running on
// this thread (the app asked for it, or a wait list holds it): when nobody
// does, its profiling times can never be read.
bool running_command_observed();

// A device's profiling time on the host clock (now_ns()). The first call per
// device measures the clock offset, which may enqueue a marker on the
// device's queue and finish it: launch threads only, never a callback.
cl_ulong device_to_host_ns(unsigned device, cl_ulong device_ns);
// The same, nullopt while the offset is not measured (safe anywhere).
std::optional<cl_ulong> measured_device_to_host_ns(unsigned device, cl_ulong device_ns);

}  // namespace libsplit
