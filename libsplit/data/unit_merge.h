// Merging the copies of a buffer that several devices wrote in one launch.
// Each device ran its slice on a copy equal to the launch's starting
// contents (the snapshot); what a device changed is where its copy differs.
// The merge compares and copies whole store units (summary.h
// ArgSummary::store_unit: 4 bytes for a kernel storing floats), never single
// bytes of a wider store: where two devices stored different values to the
// same element (a race the kernel allows, OpenCL then returns one writer's
// value), a byte merge could mix the two into a value nobody wrote.
#pragma once

#include <cstddef>
#include <cstdint>

namespace libsplit {

class UnitMerge {
 public:
  // `out` holds the snapshot's `bytes` bytes on entry and the merge at the
  // end; `unit` is taken as its largest power-of-two divisor up to 128;
  // units are counted from `out`, which must be aligned to them (a trailing
  // partial unit merges by byte).
  UnitMerge(const uint8_t* snapshot, uint8_t* out, size_t bytes, unsigned unit);

  // One device's copy, in increasing order of precedence: a unit it changed
  // replaces the merge's whole unit (the device holding the highest
  // work-groups goes last, so it wins, as a sequential device would most
  // often show).
  void add(const uint8_t* copy);

  // Units that two devices both changed, to different values (racy writes).
  uint64_t conflicts() const { return conflicts_; }
  unsigned unit() const { return unit_; }

 private:
  // The units of W bytes in [begin, end) of `copy`.
  template <unsigned W>
  void add_units(const uint8_t* copy, size_t begin, size_t end);

  const uint8_t* snapshot_;
  uint8_t* out_;
  size_t bytes_;
  unsigned unit_;
  uint64_t conflicts_ = 0;
};

// The largest power of two dividing x, at most `cap` (cap for x = 0).
unsigned alignment_of(uint64_t x, unsigned cap);

}  // namespace libsplit
