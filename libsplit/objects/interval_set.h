// A set of bytes as sorted, disjoint, non-adjacent half-open ranges
// [begin, end). Tracks where the bytes of a virtual buffer are valid.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace libsplit {

struct Range {
  uint64_t begin = 0, end = 0;
  bool empty() const { return begin >= end; }
  uint64_t size() const { return empty() ? 0 : end - begin; }
  bool operator==(const Range&) const = default;
};

class IntervalSet {
 public:
  void add(Range r);
  void remove(Range r);
  void clear() { ranges_.clear(); }
  // True when every byte of r is in the set (an empty r is always covered).
  bool covers(Range r) const;
  // The parts of r that are not in the set, in order.
  std::vector<Range> missing(Range r) const;
  // The parts of r that are in the set, in order.
  std::vector<Range> present(Range r) const;
  std::vector<Range> ranges() const;
  uint64_t total() const;
  bool empty() const { return ranges_.empty(); }

 private:
  std::map<uint64_t, uint64_t> ranges_;  // begin -> end
};

}  // namespace libsplit
