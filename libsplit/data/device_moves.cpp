#include "device_moves.h"

#include "clock.h"
#include "device_wait.h"
#include "pinned_staging.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>
#include <map>

namespace libsplit {

namespace {

// A move of one piece from device `from` to device `to`.
struct Move {
  BufferStore* store;
  unsigned from, to;
  Range piece;
};

// A device receiving moves, and how far they have gone: the move under way
// and the bytes of it already moved.
struct Receiver {
  unsigned device;
  std::vector<Move> moves;
  size_t next = 0;
  uint64_t done = 0;
};

// The moves stage_for_device would make through the staging memory (see
// copy_between_devices in buffer_data.cpp), per receiving device.
std::vector<Receiver> staged_moves(const std::vector<DeviceNeed>& needs) {
  std::map<std::pair<BufferStore*, unsigned>, IntervalSet> wanted;
  for (const DeviceNeed& n : needs) {
    size_state(*n.store);
    // The usual launch once owner computes has settled: nothing to move.
    if (!n.store->dev_valid[n.device].covers(n.range)) wanted[{n.store, n.device}].add(n.range);
  }
  std::map<unsigned, std::vector<Move>> moves;
  for (auto& [where, set] : wanted) {
    auto [s, d] = where;
    for (Range r : set.ranges())
      for (const auto& [e, piece] : held_elsewhere(*s, d, r))
        if (staged_size(piece)) moves[d].push_back({s, e, d, piece});
  }
  std::vector<Receiver> receivers;
  for (auto& [d, list] : moves) receivers.push_back({d, std::move(list)});
  return receivers;
}

// A round's share of one move: `n` bytes at `at`, through the staging slot `ptr`.
struct Part {
  Move m;
  uint64_t at;
  size_t n;
  uint8_t* ptr;
  cl_mem to;  // the receiver's buffer
};

// One copy per part, all in flight, then all waited for: the reads from the
// holders into the slots, or the writes from the slots to the receivers.
// The first failure's status.
cl_int copy_all(const std::vector<Part>& parts, bool read) {
  const Runtime& rt = runtime();
  std::vector<cl_event> events;
  cl_int err = CL_SUCCESS;
  for (const Part& p : parts) {
    cl_command_queue q = rt.devices[read ? p.m.from : p.m.to].queue;
    cl_event e = nullptr;
    err = read ? real().clEnqueueReadBuffer(q, p.m.store->dev_mem[p.m.from], CL_FALSE, p.at, p.n, p.ptr, 0, nullptr, &e)
               : real().clEnqueueWriteBuffer(q, p.to, CL_FALSE, p.at, p.n, p.ptr, 0, nullptr, &e);
    if (err != CL_SUCCESS) break;
    real().clFlush(q);
    events.push_back(e);
  }
  for (cl_event e : events) {
    const cl_int status = wait_device_event(e);
    real().clReleaseEvent(e);
    if (err == CL_SUCCESS && status < 0) err = status;
  }
  return err;
}

}  // namespace

bool devices_move_together() {
  const Runtime& rt = runtime();
  return rt.pinning_device >= 0 && !rt.controls.device_copies &&
         std::none_of(rt.devices.begin(), rt.devices.end(),
                      [](const Device& d) { return d.place == DevicePlace::remote; });
}

cl_int move_between_devices_together(const std::vector<DeviceNeed>& needs, std::vector<TransferStats>& moved,
                                     std::vector<double>& seconds) {
  const Runtime& rt = runtime();
  if (!devices_move_together()) return CL_SUCCESS;
  std::vector<Receiver> receivers = staged_moves(needs);
  if (receivers.size() < 2) return CL_SUCCESS;
  PinnedStaging* staging = pinned_staging();
  if (!staging) return CL_SUCCESS;
  const cl_ulong t0 = now_ns();
  // One slot of the staging memory per receiver, reused each round.
  const size_t slot = staging->size / receivers.size();
  if (!slot) return CL_SUCCESS;
  for (;;) {
    std::vector<Part> parts;
    for (size_t r = 0; r < receivers.size(); ++r) {
      Receiver& to = receivers[r];
      if (to.next >= to.moves.size()) continue;
      const Move& m = to.moves[to.next];
      const uint64_t at = m.piece.begin + to.done;
      const size_t n = std::min<uint64_t>(slot, m.piece.end - at);
      cl_int err = CL_SUCCESS;
      cl_mem mem = device_buffer(*m.store, to.device, &err);
      if (!mem) return err;
      parts.push_back({m, at, n, staging->ptr + slot * r, mem});
      if ((to.done += n) >= m.piece.size()) ++to.next, to.done = 0;
    }
    if (parts.empty()) {
      // The devices waited for all of it together.
      for (const Receiver& to : receivers) seconds[to.device] += (now_ns() - t0) * 1e-9;
      return CL_SUCCESS;
    }
    if (cl_int err = copy_all(parts, /*read=*/true)) return err;
    if (cl_int err = copy_all(parts, /*read=*/false)) return err;
    for (const Part& p : parts) {
      p.m.store->dev_valid[p.m.to].add({p.at, p.at + p.n});
      moved[p.m.to].bytes_to_device += p.n;
      moved[p.m.to].bytes_to_host += p.n;
      if (rt.controls.log >= 2 && p.at + p.n == p.m.piece.end)
        log_line(2, "  copy [" + std::to_string(p.m.piece.begin) + ", " + std::to_string(p.m.piece.end) + ") dev" +
                        std::to_string(p.m.from) + " -> dev" + std::to_string(p.m.to) +
                        " (pinned staging, with the other devices' moves)");
    }
  }
}

}  // namespace libsplit
