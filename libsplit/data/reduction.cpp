#include "reduction.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace libsplit {

bool atomics_are_reductions(const KernelSummary& k) {
  for (const ArgSummary& a : k.args)
    if (a.is_pointer && a.atomics && a.address_space == AddressSpace::Global &&
        (a.reduction == ReductionOp::None || (a.reduction_bits != 32 && a.reduction_bits != 64)))
      return false;
  return true;
}

namespace {

template <typename U>
U identity_of(ReductionOp op) {
  using S = std::make_signed_t<U>;
  switch (op) {
    case ReductionOp::And:
    case ReductionOp::UMin: return std::numeric_limits<U>::max();
    case ReductionOp::Min: return static_cast<U>(std::numeric_limits<S>::max());
    case ReductionOp::Max: return static_cast<U>(std::numeric_limits<S>::min());
    default: return 0;  // add, or, xor, umax
  }
}

template <typename U>
U combine(ReductionOp op, U a, U b) {
  using S = std::make_signed_t<U>;
  switch (op) {
    case ReductionOp::Add: return static_cast<U>(a + b);  // unsigned: wraps
    case ReductionOp::And: return a & b;
    case ReductionOp::Or: return a | b;
    case ReductionOp::Xor: return a ^ b;
    case ReductionOp::UMin: return std::min(a, b);
    case ReductionOp::UMax: return std::max(a, b);
    case ReductionOp::Min: return static_cast<U>(std::min(static_cast<S>(a), static_cast<S>(b)));
    case ReductionOp::Max: return static_cast<U>(std::max(static_cast<S>(a), static_cast<S>(b)));
    case ReductionOp::None: break;
  }
  return a;
}

template <typename U>
void combine_all(ReductionOp op, uint8_t* into, const uint8_t* copy, size_t bytes) {
  for (size_t at = 0; at + sizeof(U) <= bytes; at += sizeof(U)) {
    U a, b;
    std::memcpy(&a, into + at, sizeof a);
    std::memcpy(&b, copy + at, sizeof b);
    a = combine(op, a, b);
    std::memcpy(into + at, &a, sizeof a);
  }
}

}  // namespace

std::vector<uint8_t> reduction_identity(ReductionOp op, unsigned bits) {
  std::vector<uint8_t> out(bits / 8);
  if (bits == 64) {
    uint64_t v = identity_of<uint64_t>(op);
    std::memcpy(out.data(), &v, sizeof v);
  } else if (bits == 32) {
    uint32_t v = identity_of<uint32_t>(op);
    std::memcpy(out.data(), &v, sizeof v);
  }
  return out;
}

void combine_reduction(ReductionOp op, unsigned bits, uint8_t* into, const uint8_t* copy,
                       size_t bytes) {
  if (bits == 64) combine_all<uint64_t>(op, into, copy, bytes);
  else if (bits == 32) combine_all<uint32_t>(op, into, copy, bytes);
}

}  // namespace libsplit
