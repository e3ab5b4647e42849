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
      iterator(const Range* one, Map::const_iterator it) : one_(one), it_(it) {}
      Range operator*() const { return one_ ? *one_ : Range{it_->first, it_->second}; }
      iterator& operator++() {
        if (one_) one_ = nullptr;
        else ++it_;
        return *this;
      }
      bool operator==(const iterator&) const = default;

     private:
      const Range* one_;  // the inline range, until passed
      Map::const_iterator it_;
    };
    explicit View(const IntervalSet& s) : s_(s) {}
    iterator begin() const { return {s_.one_.empty() ? nullptr : &s_.one_, s_.ranges_.begin()}; }
    iterator end() const { return {nullptr, s_.ranges_.end()}; }
    size_t size() const { return s_.ranges_.size() + !s_.one_.empty(); }
    std::vector<Range> vector() const {
      std::vector<Range> out;
      for (Range r : *this) out.push_back(r);
      return out;
    }

   private:
    const IntervalSet& s_;
  };

  void add(Range r);
  void remove(Range r);
  void clear() { ranges_.clear(), one_ = {}; }
  // True when every byte of r is in the set (an empty r is always covered).
  bool covers(Range r) const;
  // The parts of r that are not in the set, in order.
  std::vector<Range> missing(Range r) const;
  // The parts of r that are in the set, in order.
  std::vector<Range> present(Range r) const;
  View ranges() const { return View(*this); }
  uint64_t total() const;
  bool empty() const { return ranges_.empty() && one_.empty(); }

 private:
  // A set of one range (most of them: a slice's bytes, a device's part of a
  // buffer) lives in one_, without a map node: a split launch made and
  // freed ~12 nodes. Two or more live in ranges_ (one_ empty then).
  void spill();   // one_ into ranges_
  void settle();  // a lone range of ranges_ back into one_
  Range one_;
  Map ranges_;
};

}  // namespace libsplit
