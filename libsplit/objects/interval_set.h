// A set of bytes as sorted, disjoint, non-adjacent half-open ranges
// [begin, end). Tracks where the bytes of a virtual buffer are valid.
#pragma once

#include <cstddef>
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
  using Map = std::map<uint64_t, uint64_t>;  // begin -> end

 public:
  // The ranges in order, read in place (no copy: a split launch walked ~20
  // such lists, each copied into a vector it allocated). Valid while the
  // set is not changed.
  class View {
   public:
    class iterator {
     public:
      explicit iterator(Map::const_iterator it) : it_(it) {}
      Range operator*() const { return {it_->first, it_->second}; }
      iterator& operator++() { return ++it_, *this; }
      bool operator==(const iterator&) const = default;

     private:
      Map::const_iterator it_;
    };
    explicit View(const Map& m) : m_(m) {}
    iterator begin() const { return iterator(m_.begin()); }
    iterator end() const { return iterator(m_.end()); }
    size_t size() const { return m_.size(); }
    std::vector<Range> vector() const {
      std::vector<Range> out;
      for (Range r : *this) out.push_back(r);
      return out;
    }

   private:
    const Map& m_;
  };

  void add(Range r);
  void remove(Range r);
  void clear() { ranges_.clear(); }
  // True when every byte of r is in the set (an empty r is always covered).
  bool covers(Range r) const;
  // The parts of r that are not in the set, in order.
  std::vector<Range> missing(Range r) const;
  // The parts of r that are in the set, in order.
  std::vector<Range> present(Range r) const;
  View ranges() const { return View(ranges_); }
  uint64_t total() const;
  bool empty() const { return ranges_.empty(); }

 private:
  Map ranges_;
};

}  // namespace libsplit
