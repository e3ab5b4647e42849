#include "interval_set.h"

#include <algorithm>

namespace libsplit {

void IntervalSet::add(Range r) {
  // Already covered (a launch re-marking what it wrote last time): no node
  // is erased and re-made.
  if (r.empty() || covers(r)) return;
  // First range that could touch r: the one starting at or before r.begin.
  auto it = ranges_.upper_bound(r.begin);
  if (it != ranges_.begin() && std::prev(it)->second >= r.begin) --it;
  while (it != ranges_.end() && it->first <= r.end) {
    r.begin = std::min(r.begin, it->first);
    r.end = std::max(r.end, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace(r.begin, r.end);
}

void IntervalSet::remove(Range r) {
  if (r.empty()) return;
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
}

bool IntervalSet::covers(Range r) const {
  if (r.empty()) return true;
  auto it = ranges_.upper_bound(r.begin);
  if (it == ranges_.begin()) return false;
  --it;
  return it->first <= r.begin && it->second >= r.end;
}

std::vector<Range> IntervalSet::present(Range r) const {
  std::vector<Range> out;
  if (r.empty()) return out;
  auto it = ranges_.upper_bound(r.begin);
  if (it != ranges_.begin() && std::prev(it)->second > r.begin) --it;
  for (; it != ranges_.end() && it->first < r.end; ++it)
    out.push_back({std::max(r.begin, it->first), std::min(r.end, it->second)});
  return out;
}

std::vector<Range> IntervalSet::missing(Range r) const {
  std::vector<Range> out;
  if (r.empty() || covers(r)) return out;
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
  uint64_t t = 0;
  for (auto& [b, e] : ranges_) t += e - b;
  return t;
}

}  // namespace libsplit
