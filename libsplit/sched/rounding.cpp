#include "rounding.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace libsplit::sched {

std::vector<double> normalized(const std::vector<double>& x) {
  std::vector<double> out(x.size(), 0.0);
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    out[i] = (std::isfinite(x[i]) && x[i] > 0) ? x[i] : 0.0;
    sum += out[i];
  }
  if (sum <= 0) {
    std::fill(out.begin(), out.end(), x.empty() ? 0.0 : 1.0 / double(x.size()));
    return out;
  }
  for (double& v : out) v /= sum;
  return out;
}

std::vector<uint64_t> round_to_groups(const std::vector<double>& shares, uint64_t numgroups) {
  const size_t n = shares.size();
  std::vector<uint64_t> counts(n, 0);
  if (n == 0) return counts;
  std::vector<double> x = normalized(shares);
  std::vector<double> remainder(n);
  uint64_t assigned = 0;
  for (size_t i = 0; i < n; ++i) {
    double exact = x[i] * double(numgroups);
    double whole = std::floor(exact);
    counts[i] = std::min<uint64_t>(uint64_t(whole), numgroups);
    remainder[i] = exact - whole;
    assigned += counts[i];
  }
  // Floating error can make the floors overshoot by a group or two.
  while (assigned > numgroups) {
    size_t biggest = size_t(std::max_element(counts.begin(), counts.end()) - counts.begin());
    --counts[biggest];
    --assigned;
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  for (size_t k = 0; assigned < numgroups; k = (k + 1) % n) {
    ++counts[order[k]];
    ++assigned;
  }
  return counts;
}

std::vector<double> project_to_simplex(const std::vector<double>& x) {
  // Sort-based algorithm: find tau with sum(max(x - tau, 0)) = 1.
  const size_t n = x.size();
  if (n == 0) return {};
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::isfinite(x[i]) ? x[i] : 0.0;
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  double cumulative = 0, tau = 0;
  for (size_t k = 0; k < n; ++k) {
    cumulative += sorted[k];
    double candidate = (cumulative - 1.0) / double(k + 1);
    if (sorted[k] - candidate > 0) tau = candidate;
  }
  for (double& value : v) value = std::max(0.0, value - tau);
  return normalized(v);
}

}  // namespace libsplit::sched
