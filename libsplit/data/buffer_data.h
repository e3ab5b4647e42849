// Moving the bytes of virtual buffers between the host shadow and the
// devices' copies. Called with the runtime's exec lock held.
#pragma once

#include "objects.h"

namespace libsplit {

struct TransferStats {
  uint64_t bytes_to_device = 0, bytes_to_host = 0;
};

// Whether a piece moved between devices goes through the pinned staging
// where there is one (pinned_staging.h): from 1 MiB (LIBSPLIT_PINNED=1: any
// size). Smaller ones stay on the host-copy path: on an H100 + CPU, staged
// copies of stencil halos (tens of KB; two blocking calls each) made the
// moves slower (jacobi-2d 12 -> 27 ms a run) while large ones gained (3mm
// 139 -> 95 ms).
bool staged_size(Range piece);

// Root-store range of an app buffer's [offset, offset+size).
inline Range root_range(cl_mem m, uint64_t offset, uint64_t size) {
  return {m->origin + offset, m->origin + offset + size};
}

// Gives s a device buffer slot and a validity set per runtime device.
void size_state(BufferStore& s);

// The device's copy of the whole store (created on first use).
cl_mem device_buffer(BufferStore& s, unsigned device, cl_int* err);
// What a kernel on `device` receives for app buffer m (a device sub-buffer
// for app sub-buffers).
cl_mem device_arg(cl_mem m, unsigned device, cl_int* err);

// Makes r valid on the host (reads back from devices what is missing).
cl_int ensure_host(BufferStore& s, Range r, TransferStats* stats = nullptr);
// Copies r into dst: bytes valid on the host from the shadow, the others
// straight from a device that holds them (blocking), without going through
// the shadow (one copy instead of two; the host copy stays stale).
cl_int read_into(BufferStore& s, Range r, void* dst, TransferStats* stats = nullptr);
// Writes src to r on the device only (blocking), as the native runtime
// does: the host copy of r becomes stale. For stores with their own shadow
// (not USE_HOST_PTR, whose host memory is the app's).
cl_int write_device_only(BufferStore& s, unsigned device, Range r, const void* src);
// Makes r valid on the device (through the host). Writes are queued on the
// device's queue, not waited for: later commands on that queue see them.
cl_int ensure_device(BufferStore& s, unsigned device, Range r, TransferStats* stats = nullptr);
// True when device holds every byte of r (ensure_device would do nothing).
bool device_holds(BufferStore& s, unsigned device, Range r);
// Gathers the bytes of r the device lacks, so that a later ensure_device
// only queues writes and never reads from another device: those another
// device holds (and the host lacks) are copied to it, by a copy command
// within one context or through pinned staging memory (pinned_staging.h);
// the rest is made valid on the host.
cl_int stage_for_device(BufferStore& s, unsigned device, Range r, TransferStats* stats = nullptr);
// A piece of a store that one device lacks and `holder` holds.
struct HeldPiece {
  unsigned holder;
  Range piece;
};
// The bytes of r that `device` lacks, the host copy lacks too and another
// device holds, each byte from one holder (the first in device order): what
// stage_for_device may move between devices without the host copy.
std::vector<HeldPiece> held_elsewhere(BufferStore& s, unsigned device, Range r);
// r was written on the host / on the device: every other copy is stale.
void wrote_host(BufferStore& s, Range r);
void wrote_device(BufferStore& s, unsigned device, Range r);
// The device's copy of r is overwritten with scratch (a reduction buffer's
// private copy): no longer valid there. Other copies are unchanged.
void discard_device(BufferStore& s, unsigned device, Range r);

}  // namespace libsplit
