#include "interval_set.h"

#include <algorithm>

namespace libsplit {

void IntervalSet::spill() {
  if (!one_.empty()) ranges_.emplace(one_.begin, one_.end);
  one_ = {};
}

void IntervalSet::settle() {
  if (ranges_.size() != 1) return;
  one_ = {ranges_.begin()->first, ranges_.begin()->second};
  ranges_.clear();
}

void IntervalSet::add(Range r) {
  if (r.empty()) return;
  if (ranges_.empty()) {
    if (one_.empty()) {
      one_ = r;
      return;
    }
    if (r.begin <= one_.end && one_.begin <= r.end) {  // overlapping or adjacent
      one_ = {std::min(one_.begin, r.begin), std::max(one_.end, r.end)};
      return;
    }
    spill();
  }
  // Already covered (a launch re-marking what it wrote last time): no node
  // is erased and re-made.
  if (covers(r)) return;
  // First range that could touch r: the one starting at or before r.begin.
  auto it = ranges_.upper_bound(r.begin);
  if (it != ranges_.begin() && std::prev(it)->second >= r.begin) --it;
  while (it != ranges_.end() && it->first <= r.end) {
    r.begin = std::min(r.begin, it->first);
    r.end = std::max(r.end, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace(r.begin, r.end);
  settle();
}

void IntervalSet::remove(Range r) {
  if (r.empty()) return;
  if (ranges_.empty()) {
    if (one_.empty() || r.end <= one_.begin || r.begin >= one_.end) return;
    const Range lo{one_.begin, r.begin}, hi{r.end, one_.end};
    one_ = {};
    if (!lo.empty() && !hi.empty()) ranges_.emplace(lo.begin, lo.end), ranges_.emplace(hi.begin, hi.end);
    else if (!lo.empty()) one_ = lo;
    else if (!hi.empty()) one_ = hi;
    return;
  }
  auto it = ranges_.upper_bound(r.begin);
  if (it != ranges_.begin() && std::prev(it)->second > r.begin) --it;
  while (it != ranges_.end() && it->first < r.end) {
    uint64_t b = it->first, e = it->second;
    it = ranges_.erase(it);
    if (b < r.begin) ranges_.emplace(b, r.begin);
    if (e > r.end) {
      ranges_.emplace(r.end, e);
      break;
    }
  }
  settle();
}

bool IntervalSet::covers(Range r) const {
  if (r.empty()) return true;
  if (ranges_.empty()) return one_.begin <= r.begin && one_.end >= r.end && !one_.empty();
  auto it = ranges_.upper_bound(r.begin);
  if (it == ranges_.begin()) return false;
  --it;
  return it->first <= r.begin && it->second >= r.end;
}

std::vector<Range> IntervalSet::present(Range r) const {
  std::vector<Range> out;
  if (r.empty()) return out;
  if (ranges_.empty()) {
    const Range both{std::max(r.begin, one_.begin), std::min(r.end, one_.end)};
    if (!both.empty()) out.push_back(both);
    return out;
  }
  auto it = ranges_.upper_bound(r.begin);
  if (it != ranges_.begin() && std::prev(it)->second > r.begin) --it;
  for (; it != ranges_.end() && it->first < r.end; ++it)
    out.push_back({std::max(r.begin, it->first), std::min(r.end, it->second)});
  return out;
}

std::vector<Range> IntervalSet::missing(Range r) const {
  std::vector<Range> out;
  if (r.empty() || covers(r)) return out;
  if (ranges_.empty()) {
    if (one_.empty() || one_.end <= r.begin || one_.begin >= r.end) return {r};
    if (r.begin < one_.begin) out.push_back({r.begin, one_.begin});
    if (one_.end < r.end) out.push_back({one_.end, r.end});
    return out;
  }
  uint64_t pos = r.begin;
  auto it = ranges_.upper_bound(r.begin);
  if (it != ranges_.begin() && std::prev(it)->second > r.begin) --it;
  for (; it != ranges_.end() && it->first < r.end; ++it) {
    if (it->first > pos) out.push_back({pos, it->first});
    pos = std::max(pos, it->second);
  }
  if (pos < r.end) out.push_back({pos, r.end});
  return out;
}

uint64_t IntervalSet::total() const {
  uint64_t t = one_.size();
  for (auto& [b, e] : ranges_) t += e - b;
  return t;
}

}  // namespace libsplit
