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

// The staging buffer, allocated at first use; null when pinning is off or
// the driver refused. Called with the runtime's exec lock held.
PinnedStaging* pinned_staging();

}  // namespace libsplit
