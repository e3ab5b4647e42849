#include "index_hull.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace libsplit {

namespace {

template <typename T>
std::optional<Interval> hullOf(const uint8_t* data, uint64_t count) {
  T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::min();
  for (uint64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, data + i * sizeof(T), sizeof(T));
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!count) return Interval{};
  if constexpr (std::is_same_v<T, uint64_t>)
    if (hi > uint64_t(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return Interval{int64_t(lo), int64_t(hi)};
}

Interval join(const Interval& a, const Interval& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

}  // namespace

std::optional<Interval> scan_hull(const uint8_t* data, uint64_t count, unsigned bits, bool is_signed) {
  switch (bits) {
    case 8: return is_signed ? hullOf<int8_t>(data, count) : hullOf<uint8_t>(data, count);
    case 16: return is_signed ? hullOf<int16_t>(data, count) : hullOf<uint16_t>(data, count);
    case 32: return is_signed ? hullOf<int32_t>(data, count) : hullOf<uint32_t>(data, count);
    case 64: return is_signed ? hullOf<int64_t>(data, count) : hullOf<uint64_t>(data, count);
    default: return std::nullopt;
  }
}

BlockHulls::BlockHulls(unsigned bits, bool is_signed, uint64_t elements)
    : bits_(bits), signed_(is_signed), elements_(elements) {
  const uint64_t n = (elements + kBlockElements - 1) / kBlockElements;
  blocks_.resize(n);
  state_.assign(n, State::Unknown);
}

std::optional<Interval> BlockHulls::hull(uint64_t first, uint64_t last, const Fetch& fetch, uint64_t* scanned) {
  if (first > last) return Interval{};
  if (last >= elements_) return std::nullopt;
  // nullopt: unreadable (*readable = false) or a value not representable.
  auto scan = [&](uint64_t from, uint64_t count, bool* readable) -> std::optional<Interval> {
    const uint8_t* bytes = fetch(from, count);
    *readable = bytes != nullptr;
    if (!bytes) return std::nullopt;
    if (scanned) *scanned += count;
    return scan_hull(bytes, count, bits_, signed_);
  };
  Interval out;
  uint64_t at = first;
  while (at <= last) {
    const uint64_t block = at / kBlockElements;
    const uint64_t begin = block * kBlockElements;
    const uint64_t end = std::min(begin + kBlockElements, elements_);  // exclusive
    if (at == begin && end - 1 <= last) {
      // A whole block: its hull is remembered.
      if (state_[block] == State::Unknown) {
        bool readable = false;
        std::optional<Interval> h = scan(begin, end - begin, &readable);
        if (!readable) return std::nullopt;  // not remembered: may be readable later
        state_[block] = h ? State::Known : State::Unrepresentable;
        if (h) blocks_[block] = *h;
      }
      if (state_[block] == State::Unrepresentable) return std::nullopt;
      out = join(out, blocks_[block]);
      at = end;
      continue;
    }
    const uint64_t stop = std::min(end - 1, last);
    bool readable = false;
    std::optional<Interval> h = scan(at, stop - at + 1, &readable);
    if (!h) return std::nullopt;
    out = join(out, *h);
    at = stop + 1;
  }
  return out;
}

}  // namespace libsplit
