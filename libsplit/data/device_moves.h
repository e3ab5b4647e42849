// Bytes several devices need from one another before a split launch (an
// all-gather: 3mm's G = E.F needs on every GPU the part of F the others
// wrote), moved through the pinned staging memory with the pieces bound for
// different devices in flight together. One after the other, as
// stage_for_device moves them, both directions of 3mm's 8 MB gather over 2
// H200 took 0.85 ms of its 5.64 ms iteration (a read from the holder, then
// a write to the needer, four times); each device's copies run on its own
// link, so the reads of all devices overlap, then their writes.
#pragma once

#include "buffer_data.h"

#include <vector>

namespace libsplit {

struct DeviceNeed {
  BufferStore* store;
  unsigned device;
  Range range;
};

// Moves, for every need, what the host copy lacks and another device holds,
// where stage_for_device would move it through the pinned staging memory;
// moved[d] counts device d's bytes (to the device, and through the host),
// seconds[d] gets the time of all the moves where device d received some.
// Left to stage_for_device: everything else (the host-copy path, copy
// commands with LIBSPLIT_DEVICE_COPIES, remote devices), and everything when
// fewer than two devices need such bytes. CL_SUCCESS or the first error.
// Whether move_between_devices_together moves anything in this process
// (pinned staging between local devices): where not, callers need not list
// their needs (every launch on a CPU-only node).
bool devices_move_together();

cl_int move_between_devices_together(const std::vector<DeviceNeed>& needs, std::vector<TransferStats>& moved,
                                     std::vector<double>& seconds);

}  // namespace libsplit
