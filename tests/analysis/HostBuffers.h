// The contents of a launch's buffers on the host (one byte vector per kernel
// argument, empty for non-buffers), answering the loads of index-dependent
// regions as the runtime's IndexReader does from its host copies.
#pragma once

#include "libsplit/region.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace libsplit::test {

class HostBuffers : public LoadedValues {
 public:
  explicit HostBuffers(std::vector<std::vector<uint8_t>> b) : buffers(std::move(b)) {}
  std::optional<Interval> load_hull(unsigned arg, unsigned bits, bool is_signed, int64_t first,
                                    int64_t last) const override {
    const int64_t size = bits / 8;
    if (arg >= buffers.size() || first < 0 || last + size > int64_t(buffers[arg].size())) return std::nullopt;
    auto read = [&](int64_t at) {
      uint64_t raw = 0;
      std::memcpy(&raw, buffers[arg].data() + at, size_t(size));
      if (bits < 64 && is_signed && ((raw >> (bits - 1)) & 1)) raw |= ~uint64_t(0) << bits;
      return int64_t(raw);
    };
    Interval out{read(first), read(first)};
    for (int64_t at = first; at <= last; at += size) out = {std::min(out.lo, read(at)), std::max(out.hi, read(at))};
    if (!is_signed && bits == 64) {
      for (int64_t at = first; at <= last; at += size)
        if (read(at) < 0) return std::nullopt;  // above INT64_MAX
    }
    return out;
  }
  std::vector<std::vector<uint8_t>> buffers;
};

}  // namespace libsplit::test
