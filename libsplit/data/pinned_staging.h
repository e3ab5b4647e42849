// Page-locked staging memory for moving buffer bytes from one device to
// another. Host <-> GPU copies from pageable memory ran 4-7x slower than from
// pinned memory on the GPU node (H100: 7-9 GB/s against 28-55 GB/s), and a
// move between two devices through a buffer's host copy paid two of them.
// OpenCL's portable way to get pinned memory is a CL_MEM_ALLOC_HOST_PTR
// buffer, mapped; its pages are locked for the devices of the platform that
// allocated it.
//
// On 2 H100 (every launch split evenly) it cut the transfer time of split
// launches 7-16x against the host copy (bench/results/2xh100-moves-2026-11-25).
// Only the staging buffer is pinned, not the buffers' host copies: pinned
// host copies of every buffer halved the transfer time of split launches on
// an H100 + CPU but cost 0.3-0.4 s of wall time per large app in allocation
// (bench/results/h100-xeon16-pinned-2026-11-25/README.md).
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>

namespace libsplit {

struct PinnedStaging {
  cl_mem mem = nullptr;              // the ALLOC_HOST_PTR buffer (a runtime context)
  uint8_t* ptr = nullptr;            // its mapped bytes
  size_t size = 0;
};

// Runtime::pinning_device (chosen in runtime.cpp, LIBSPLIT_PINNED): auto (the
// default) and 1 pick a GPU; 1 without a GPU picks the first device (so that
// the path is tested on machines without one) and stages pieces of any size
// (auto: from 1 MiB, buffer_data.cpp); 0: none, moves go through the
// buffers' host copies.

// The staging buffer, allocated at the first call; null when pinning is off
// or the driver refused. Thread-safe: a caller that comes while another
// pins waits for it.
PinnedStaging* pinned_staging();

// Pins the staging buffer now, from the background opener, once slot
// `opened_slot` (a device beside the app's) is open and before any split may
// use it: pinning 8 MiB took 4.5-5.6 ms on an H200, which the first split
// that moved bytes paid on the app's thread. Nothing while the pinning
// device's own slot is still closed (the first use pins then).
void pin_staging_beside(unsigned opened_slot);

}  // namespace libsplit
