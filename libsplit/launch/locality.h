// Owner computes: a split launch's slices go where their data already is.
//
// Every split launch records which device ran each work-group, per launch
// shape (NDRange, local size, split dimension): the kernels of a time-step
// cycle sharing buffers (stencil + copy, fdtd's three updates, ping-pong
// stencils) have one shape, so the last launch of the shape says where the
// next one's data lives.
//  - Static splits (one slice per device): the partition recorded for the
//    shape competes with the scheduler's plan on predicted cost, kernel time
//    (this kernel's measured time per group on each device) plus the bytes
//    each device lacks for its slices (read from the buffers' validity,
//    at a nominal 8 GB/s). The plan wins only when what it gains in kernel
//    time, over max(4, launches so far) launches, pays for what it moves,
//    and the gain is above the noise, at two launches of the kernel in a row
//    (at once when it gains a quarter of the kernel time and pays its moves
//    back within the launch) (partition_change.h).
//    With LIBSPLIT_CYCLE_PARTITION=joint (the default) the proposal is not the
//    scheduler's plan but the joint partition of the shape's cycle (the
//    kernels launched with it since this kernel's previous launch), which
//    minimizes the cycle's kernel time (cycle_partition.h); same rule, the
//    gain being the cycle's.
//  - Chunk schedulers: the scheduler still sizes each package, the position
//    comes from the recorded owners (OwnerPlacement): a device takes groups
//    it owned, and an idle device takes the end of another's remaining
//    groups nearest its own when that beats leaving them to their owner
//    (launch_dynamic.cpp; packages drained up front, launch_split.cpp), so
//    rows stay put launch after launch instead of being dealt out in
//    NDRange order. A fragmented record is stored as one block per device.
// LIBSPLIT_OWNER_COMPUTES=0 turns both off. Runs under the exec lock.
#pragma once

#include "launch.h"

#include <optional>
#include <string>
#include <vector>

namespace libsplit {

// What the launch's chunks cost to stage: bytes written to each device and
// read back to the host first (exact, from regions and validity).
struct StagingEstimate {
  uint64_t to_device = 0, to_host = 0;
};
StagingEstimate staging_bytes(const Launch& L, const std::vector<sched::Chunk>& chunks);
// The same in seconds, at a nominal host<->device rate (8 GB/s).
double staging_seconds(const StagingEstimate& bytes);

// Static split: the chunks to run instead of `planned` (one per device, from
// the scheduler), or nullopt to run the plan. `why` says what was decided.
std::optional<std::vector<sched::Chunk>> owner_computes_split(const Launch& L,
                                                              const std::vector<sched::Chunk>& planned,
                                                              std::string* why);

// After a split launch: who ran which groups (for the next launch of the
// shape), the kernel seconds of each chunk (this kernel's rates per device)
// and the seconds staging took for its bytes (the host copy rate).
void record_split(const Launch& L, const std::vector<sched::ChunkTiming>& timings, uint64_t bytes_moved,
                  double staging_seconds);
// The same in two steps, for a split launch that returns before its
// sub-kernels complete: who runs which groups when it is enqueued (the next
// launch of the shape places its slices by it), the times once they are
// measured (they may arrive a few launches later).
struct SplitRecord {
  std::string rate_key;  // empty: owner computes does not apply
  bool first_of_shape = false;
};
SplitRecord record_split_partition(const Launch& L, const std::vector<sched::Chunk>& chunks);
void record_split_times(const SplitRecord& record, const std::vector<sched::ChunkTiming>& timings,
                        uint64_t bytes_moved, double staging_seconds);

// Chunk schedulers: places the packages of one launch.
class OwnerPlacement {
 public:
  OwnerPlacement(const Launch& L, unsigned devices);
  // Whether owners are used (else packages keep the plan's positions): from
  // the shape's last launch, or equal contiguous blocks at its first.
  bool active() const { return active_; }
  // A contiguous run of at most `size` groups for device d, or nullopt when
  // every group is placed. With `may_decline`, a device that has none of its
  // own groups left takes another's only when that is predicted to finish
  // sooner than leaving them to their owner (its kernel time plus the bytes
  // it would move, against the owner's time for what it has left); nullopt
  // then means this device is done.
  std::optional<sched::Chunk> place(unsigned device, uint64_t size, bool may_decline = false);
  uint64_t remaining() const { return remaining_; }

 private:
  const Launch* launch_ = nullptr;
  bool active_ = false;
  // The lowest and highest unplaced group of owner `who`, or -1 / n when it
  // has none: cursors that only move inward (a group once placed stays
  // placed, owners do not change), so each launch scans its groups once
  // however many packages it deals (it rescanned them at every package).
  int64_t lowest_unplaced(int who);
  int64_t highest_unplaced(int who);

  std::vector<int> owner_;      // recorded owner per group (-1: none)
  std::vector<bool> placed_;
  // Indexed by owner + 1 (0: no owner).
  std::vector<int64_t> low_, high_;          // the cursors above
  std::vector<int64_t> first_, last_;        // the owner's groups' range, placed or not
  std::vector<uint64_t> left_;               // its unplaced groups
  int top_owner_ = -1;          // the highest-numbered owner: takes its groups from the top
  uint64_t remaining_ = 0;
  unsigned devices_ = 0;
};

}  // namespace libsplit
