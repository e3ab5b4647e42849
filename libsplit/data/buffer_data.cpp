#include "buffer_data.h"

#include "app_host_memory.h"
#include "deferred_writes.h"
#include "device_wait.h"
#include "device_kernel_args.h"

#include "pinned_staging.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <string>

namespace libsplit {

// The end of a store (declared with it in objects.h): what holds its bytes
// is this stage's business.
BufferStore::~BufferStore() {
  if (app_host_memory) {
    // The app's own memory (USE_HOST_PTR on a device sharing host memory)
    // gets what devices wrote last: natively it is the buffer, and the app
    // may read it once the buffer is gone. Nobody else can reach this store
    // any more: no lock needed for its state.
    if (cl_int err = ensure_host(*this, Range{0, size})) note_lost_app_host_memory(err);
    untrack_app_host_memory(*this);
  }
  deferred_flush_store(*this);
  // The shadow is freed below: no device write may still read it.
  before_shadow_change(*this, Range{0, size});
  for (cl_mem m : dev_mem) release_device_mem(m);
  for (cl_mem m : probe_mem) release_device_mem(m);
}


void size_state(BufferStore& s) {
  size_t n = runtime().devices.size();
  if (s.dev_mem.size() < n) s.dev_mem.resize(n, nullptr);
  if (s.dev_valid.size() < n) s.dev_valid.resize(n, s.undefined);
}

cl_mem device_buffer(BufferStore& s, unsigned device, cl_int* err) {
  size_state(s);
  *err = CL_SUCCESS;
  if (!s.dev_mem[device]) {
    Runtime& rt = runtime();
    s.dev_mem[device] = real().clCreateBuffer(rt.context(rt.devices[device].slot),
                                              CL_MEM_READ_WRITE, s.size, nullptr, err);
  }
  return s.dev_mem[device];
}

cl_mem device_arg(cl_mem m, unsigned device, cl_int* err) {
  BufferStore& s = *m->store;
  cl_mem whole = device_buffer(s, device, err);
  if (!whole || !m->parent) return whole;
  std::lock_guard lock(m->mutex);
  if (m->device_subs.size() <= device) m->device_subs.resize(device + 1, nullptr);
  if (cl_mem sub = m->device_subs[device]) return sub;
  // With the app's access flags, as the app's own sub-buffer would be.
  const cl_mem_flags access = m->flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY);
  cl_buffer_region region{m->origin, m->size};
  m->device_subs[device] = real().clCreateSubBuffer(whole, access ? access : CL_MEM_READ_WRITE,
                                                    CL_BUFFER_CREATE_TYPE_REGION, &region, err);
  return m->device_subs[device];
}

namespace {

// Reads every part of r that `have` lacks from a device holding it (devices
// in order, each byte once, blocking) to dst(part), adding it to `have`.
// ensure_host reads into the shadow (`have` = host_valid), read_into into
// the app's memory (`have` = what it has copied so far).
cl_int read_from_devices(BufferStore& s, Range r, IntervalSet& have,
                         const std::function<uint8_t*(const Range&)>& dst, TransferStats* stats,
                         const char* what, const char* why = "") {
  size_state(s);
  Runtime& rt = runtime();
  for (const Range& m : have.missing(r))
    for (unsigned d = 0; d < s.dev_valid.size(); ++d)
      for (const Range& held : s.dev_valid[d].present(m))
        for (const Range& p : have.missing(held)) {
          cl_int err = read_device_buffer(d, s.dev_mem[d], p.begin, p.size(), dst(p));
          if (err != CL_SUCCESS) return err;
          have.add(p);
          if (stats) stats->bytes_to_host += p.size();
          if (rt.controls.log >= 2)
            log_line(2, std::string("  ") + what + " [" + std::to_string(p.begin) + ", " +
                            std::to_string(p.end) + ") from dev" + std::to_string(d) + why);
        }
  return CL_SUCCESS;
}

}  // namespace

cl_int ensure_host(BufferStore& s, Range r, TransferStats* stats) {
  if (s.host_valid.covers(r)) return CL_SUCCESS;
  if (cl_int err = read_from_devices(s, r, s.host_valid,
                                     [&](const Range& p) {
                                       before_shadow_change(s, p);
                                       return s.shadow + p.begin;
                                     },
                                     stats, "read back"))
    return err;
  // Bytes valid nowhere (never written) keep the shadow's contents.
  s.host_valid.add(r);
  return CL_SUCCESS;
}

cl_int read_into(BufferStore& s, Range r, void* dst, TransferStats* stats) {
  auto* out = static_cast<uint8_t*>(dst);
  // Bytes valid on the host count as had: they come from the shadow below.
  IntervalSet had;
  for (const Range& p : s.host_valid.present(r)) had.add(p);
  if (cl_int err = read_from_devices(s, r, had, [&](const Range& p) { return out + (p.begin - r.begin); },
                                     stats, "read", " for the app"))
    return err;
  // The rest: valid on the host, or valid nowhere (never written: the
  // shadow's contents, as ensure_host leaves them).
  IntervalSet from_devices = had;
  for (const Range& p : s.host_valid.present(r)) from_devices.remove(p);
  for (const Range& p : from_devices.missing(r))
    std::memcpy(out + (p.begin - r.begin), s.shadow + p.begin, p.size());
  return CL_SUCCESS;
}

cl_int write_device_only(BufferStore& s, unsigned device, Range r, const void* src) {
  cl_int err = CL_SUCCESS;
  cl_mem mem = device_buffer(s, device, &err);
  if (!mem) return err;
  err = write_device_buffer(device, mem, r.begin, r.size(), src);
  if (err != CL_SUCCESS) return err;
  wrote_device(s, device, r);
  if (runtime().controls.log >= 2)
    log_line(2, "  write [" + std::to_string(r.begin) + ", " + std::to_string(r.end) + ") to dev" +
                    std::to_string(device) + " from the app");
  return CL_SUCCESS;
}

cl_int ensure_device(BufferStore& s, unsigned device, Range r, TransferStats* stats) {
  size_state(s);
  auto missing = s.dev_valid[device].missing(r);
  if (missing.empty()) return CL_SUCCESS;
  cl_int err = CL_SUCCESS;
  cl_mem mem = device_buffer(s, device, &err);
  if (!mem) return err;
  cl_command_queue q = runtime().devices[device].queue;
  for (const Range& m : missing) {
    if ((err = ensure_host(s, m, stats))) return err;
    cl_event reading = nullptr;
    err = real().clEnqueueWriteBuffer(q, mem, CL_FALSE, m.begin, m.size(), s.shadow + m.begin, 0,
                                      nullptr, &reading);
    if (err != CL_SUCCESS) return err;
    note_shadow_reader(s, m, reading);
    s.dev_valid[device].add(m);
    if (stats) stats->bytes_to_device += m.size();
    if (runtime().controls.log >= 2)
      log_line(2, "  write [" + std::to_string(m.begin) + ", " + std::to_string(m.end) +
                      ") to dev" + std::to_string(device));
  }
  return CL_SUCCESS;
}

bool staged_size(Range piece) {
  constexpr uint64_t kMinStagedBytes = uint64_t(1) << 20;
  return piece.size() >= kMinStagedBytes || runtime().controls.pinned == "1";
}

std::vector<HeldPiece> held_elsewhere(BufferStore& s, unsigned device, Range r) {
  size_state(s);
  std::vector<HeldPiece> pieces;
  IntervalSet taken;  // bytes a holder before supplies
  for (const Range& missing : s.dev_valid[device].missing(r))
    for (const Range& stale : s.host_valid.missing(missing))
      for (unsigned e = 0; e < s.dev_valid.size(); ++e) {
        if (e == device) continue;
        for (const Range& held : s.dev_valid[e].present(stale))
          for (const Range& piece : taken.missing(held)) {
            pieces.push_back({e, piece});
            taken.add(piece);
          }
      }
  return pieces;
}

bool device_holds(BufferStore& s, unsigned device, Range r) {
  size_state(s);
  return s.dev_valid[device].covers(r);
}

namespace {

// One piece through the pinned staging memory, in parts of its size: a
// blocking read from the holder, a blocking write to `device` (the staging
// memory is reused at once). The staging memory, pinned in one GPU's
// context, runs at that GPU's pinned rate for the other GPUs too, each in a
// context of its own (4 H100: 52-55 GB/s, bench/tools/host_bandwidth
// --pinned-by). Reading the next piece while writing the previous one (two
// halves in turn) gained nothing on 2 H100 (forced even splits of 2mm, 3mm,
// jacobi-2d, fdtd-2d, convolution-2d: 9.6-17.7 GB/s either way, the kernel
// loop 0-20 % slower): a move's read waits behind the kernel that wrote the
// bytes, and most moves are one piece.
cl_int copy_staged(BufferStore& s, unsigned from, unsigned device, cl_mem to, Range p,
                   PinnedStaging& staging) {
  for (uint64_t at = p.begin; at < p.end; at += staging.size) {
    const size_t n = std::min<uint64_t>(staging.size, p.end - at);
    cl_int err = read_device_buffer(from, s.dev_mem[from], at, n, staging.ptr);
    if (err == CL_SUCCESS) err = write_device_buffer(device, to, at, n, staging.ptr);
    if (err != CL_SUCCESS) return err;
  }
  return CL_SUCCESS;
}

// One piece between two devices of one internal context: a copy command
// on `device`'s queue once the holder's queue is idle, waited for (the
// holder's later commands may overwrite the bytes). Cross-queue event waits
// (a marker on the holder's queue in the copy's wait list, a barrier on it
// after) deadlocked inside PoCL 3.1.
cl_int copy_in_context(BufferStore& s, unsigned from, unsigned device, cl_mem to, Range p) {
  Runtime& rt = runtime();
  cl_int err = finish_device_queue(rt.devices[from].queue);
  if (err != CL_SUCCESS) return err;
  cl_event copied = nullptr;
  err = real().clEnqueueCopyBuffer(rt.devices[device].queue, s.dev_mem[from], to, p.begin, p.begin,
                                   p.size(), 0, nullptr, &copied);
  if (err != CL_SUCCESS) return err;
  const cl_int status = wait_device_event(copied);
  real().clReleaseEvent(copied);
  return status < 0 ? status : CL_SUCCESS;
}

// Moves to `device` the parts of m that the host copy lacks and another
// device holds, without the host copy (it stays stale): a copy command when
// both devices share an internal context (LIBSPLIT_DEVICE_COPIES), else
// through pinned staging memory for pieces of 1 MiB and more
// (LIBSPLIT_PINNED). What neither takes is left to the host-copy path.
cl_int copy_between_devices(BufferStore& s, unsigned device, Range m, TransferStats* stats) {
  Runtime& rt = runtime();
  cl_int err = CL_SUCCESS;
  cl_mem to = nullptr;
  for (const auto& [e, p] : held_elsewhere(s, device, m)) {
    const bool same_context = rt.controls.device_copies && rt.devices[e].slot == rt.devices[device].slot;
    const bool staged = !same_context && rt.pinning_device >= 0 && staged_size(p);
    if (!same_context && !staged) continue;
    if (!to && !(to = device_buffer(s, device, &err))) return err;
    if (same_context) {
      err = copy_in_context(s, e, device, to, p);
    } else {
      PinnedStaging* staging = pinned_staging();
      if (!staging) continue;
      err = copy_staged(s, e, device, to, p, *staging);
    }
    if (err != CL_SUCCESS) return err;
    s.dev_valid[device].add(p);
    if (stats) stats->bytes_to_device += p.size();
    if (staged && stats) stats->bytes_to_host += p.size();
    if (rt.controls.log >= 2)
      log_line(2, "  copy [" + std::to_string(p.begin) + ", " + std::to_string(p.end) + ") dev" + std::to_string(e) +
                      " -> dev" + std::to_string(device) + (same_context ? " (same context)" : " (pinned staging)"));
  }
  return CL_SUCCESS;
}

}  // namespace

cl_int stage_for_device(BufferStore& s, unsigned device, Range r, TransferStats* stats) {
  size_state(s);
  // Held by another device and stale on the host: straight over (one copy
  // command, or one DMA each way through pinned memory, instead of a read
  // into the pageable host copy and a write from it). Without either
  // mechanism (CPU-only nodes by default) nothing is scanned for it.
  const Runtime& rt = runtime();
  if (rt.pinning_device >= 0 || rt.controls.device_copies)
    for (const Range& m : s.dev_valid[device].missing(r))
      if (cl_int err = copy_between_devices(s, device, m, stats)) return err;
  for (const Range& m : s.dev_valid[device].missing(r))
    if (cl_int err = ensure_host(s, m, stats)) return err;
  return CL_SUCCESS;
}

uint64_t new_content_version() {
  static std::atomic<uint64_t> next{0};
  return ++next;
}

void wrote_host(BufferStore& s, Range r) {
  s.version = new_content_version();
  s.undefined.remove(r);
  s.host_valid.add(r);
  for (auto& v : s.dev_valid) v.remove(r);
}

void wrote_device(BufferStore& s, unsigned device, Range r) {
  size_state(s);
  s.version = new_content_version();
  s.undefined.remove(r);
  s.host_valid.remove(r);
  for (unsigned d = 0; d < s.dev_valid.size(); ++d) {
    if (d == device)
      s.dev_valid[d].add(r);
    else
      s.dev_valid[d].remove(r);
  }
}

void discard_device(BufferStore& s, unsigned device, Range r) {
  size_state(s);
  s.dev_valid[device].remove(r);
}

}  // namespace libsplit
