#include "unit_merge.h"

#include <cstring>

namespace libsplit {

unsigned alignment_of(uint64_t x, unsigned cap) {
  const uint64_t low = x & (~x + 1);
  return low == 0 || low > cap ? cap : static_cast<unsigned>(low);
}

UnitMerge::UnitMerge(const uint8_t* snapshot, uint8_t* out, size_t bytes, unsigned unit)
    : snapshot_(snapshot), out_(out), bytes_(bytes), unit_(alignment_of(unit, 128)) {}

template <unsigned W>
void UnitMerge::add_units(const uint8_t* copy, size_t begin, size_t end) {
  // memcmp/memcpy of a constant width compile to a load and a compare.
  for (size_t at = begin; at + W <= end; at += W) {
    if (std::memcmp(copy + at, snapshot_ + at, W) == 0) continue;
    if (std::memcmp(out_ + at, snapshot_ + at, W) != 0 && std::memcmp(out_ + at, copy + at, W) != 0)
      ++conflicts_;
    std::memcpy(out_ + at, copy + at, W);
  }
}

void UnitMerge::add(const uint8_t* copy) {
  const size_t whole = bytes_ / unit_ * unit_;
  switch (unit_) {
    case 1: add_units<1>(copy, 0, whole); break;
    case 2: add_units<2>(copy, 0, whole); break;
    case 4: add_units<4>(copy, 0, whole); break;
    case 8: add_units<8>(copy, 0, whole); break;
    case 16: add_units<16>(copy, 0, whole); break;
    case 32: add_units<32>(copy, 0, whole); break;
    case 64: add_units<64>(copy, 0, whole); break;
    default: add_units<128>(copy, 0, whole); break;
  }
  add_units<1>(copy, whole, bytes_);  // a trailing partial unit, by byte
}

}  // namespace libsplit
