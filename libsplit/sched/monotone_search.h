// The largest count within a time budget, for cost functions that grow
// with the count (the schedulers' fits: affine with slopes >= 0, or the
// largest of such lines). The schedulers ask this thousands of times per
// launch (a 50-step bisection on time over every device), so it starts
// from the line through the ends and gallops to the exact answer.
#pragma once

#include <cmath>
#include <cstdint>

namespace libsplit::sched {

// The largest g in [0, cap] with cost(g) <= budget, g = 0 always counting
// as within (cost(0) is never asked): for a non-decreasing cost, exactly
// what a binary search over [0, cap] finds, in a handful of evaluations
// (about 4 for an affine cost) instead of log2(cap).
template <class Cost>
uint64_t largest_within(const Cost& cost, uint64_t cap, double budget) {
  if (cap == 0) return 0;
  const double first = cost(1);
  if (!(first <= budget)) return 0;
  const double last = cap > 1 ? cost(cap) : first;
  if (last <= budget) return cap;
  // cost(lo) <= budget < cost(hi) from here on.
  uint64_t lo = 1, hi = cap;
  // The count where the line through both ends meets the budget.
  const double slope = (last - first) / double(cap - 1);
  const double guess = slope > 0 ? 1 + std::floor((budget - first) / slope) : 1;
  uint64_t g = guess > double(lo) ? (guess < double(hi - 1) ? uint64_t(guess) : hi - 1) : lo;
  // Gallop away from the guess until the answer is bracketed.
  if (cost(g) <= budget) {
    lo = g;
    for (uint64_t step = 1; lo + step < hi; step *= 2) {
      if (!(cost(lo + step) <= budget)) {
        hi = lo + step;
        break;
      }
      lo += step;
    }
  } else {
    hi = g;
    for (uint64_t step = 1; step < hi - lo; step *= 2) {
      if (cost(hi - step) <= budget) {
        lo = hi - step;
        break;
      }
      hi -= step;
    }
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (cost(mid) <= budget ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace libsplit::sched
