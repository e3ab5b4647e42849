// Hulls (min, max) of runs of integers stored in a buffer, for the region
// expressions that load indices (region.h, Load): a query over elements
// [first, last] scans at most two partial blocks and takes the hulls of the
// whole blocks between them from a table filled on first use, so a CSR
// matrix's column index is scanned once per content, whatever the slicing.
// Plain C++ (no OpenCL): the runtime supplies the bytes.
#pragma once

#include "libsplit/region.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace libsplit {

// Hull of the `count` integers of `bits` bits (8, 16, 32, 64; little-endian,
// signed or not) at data; nullopt when one does not fit int64 (an unsigned
// 64-bit value above INT64_MAX). count == 0 gives an empty interval.
std::optional<Interval> scan_hull(const uint8_t* data, uint64_t count, unsigned bits, bool is_signed);

class BlockHulls {
 public:
  static constexpr uint64_t kBlockElements = 1024;
  BlockHulls(unsigned bits, bool is_signed, uint64_t elements);
  // fetch(first, count): the bytes of elements [first, first + count), or
  // nullptr when they cannot be read (the query then fails). *scanned counts
  // the elements read.
  using Fetch = std::function<const uint8_t*(uint64_t first, uint64_t count)>;
  std::optional<Interval> hull(uint64_t first, uint64_t last, const Fetch& fetch, uint64_t* scanned);
  unsigned bits() const { return bits_; }
  bool is_signed() const { return signed_; }

 private:
  enum class State : uint8_t { Unknown, Known, Unrepresentable };
  unsigned bits_;
  bool signed_;
  uint64_t elements_;
  std::vector<Interval> blocks_;
  std::vector<State> state_;
};

}  // namespace libsplit
