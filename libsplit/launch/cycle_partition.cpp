#include "cycle_partition.h"

#include <algorithm>
#include <cmath>

namespace libsplit {

namespace {

constexpr double kEps = 1e-12;

// max c.x  s.t.  A x <= b, x >= 0, with b >= 0 (the origin is feasible).
// Dense tableau, Bland's rule (smallest entering index, ties in the ratio
// test to the smallest basic index): it terminates on degenerate problems.
// Returns x, or empty when unbounded or out of iterations.
std::vector<double> simplex_max(const std::vector<std::vector<double>>& A, const std::vector<double>& b,
                                const std::vector<double>& c) {
  const size_t m = A.size(), n = c.size(), cols = n + m + 1;
  std::vector<std::vector<double>> T(m + 1, std::vector<double>(cols, 0));
  std::vector<size_t> basis(m);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) T[i][j] = A[i][j];
    T[i][n + i] = 1;
    T[i][cols - 1] = b[i];
    basis[i] = n + i;
  }
  for (size_t j = 0; j < n; ++j) T[m][j] = -c[j];
  for (size_t iter = 0; iter < 50 * (m + n) + 100; ++iter) {
    size_t enter = cols;
    for (size_t j = 0; j + 1 < cols && enter == cols; ++j)
      if (T[m][j] < -kEps) enter = j;
    if (enter == cols) {
      std::vector<double> x(n, 0);
      for (size_t i = 0; i < m; ++i)
        if (basis[i] < n) x[basis[i]] = T[i][cols - 1];
      return x;
    }
    size_t leave = m;
    double best = 0;
    for (size_t i = 0; i < m; ++i) {
      if (T[i][enter] <= kEps) continue;
      const double ratio = T[i][cols - 1] / T[i][enter];
      if (leave == m || ratio < best - kEps || (ratio <= best + kEps && basis[i] < basis[leave]))
        leave = i, best = ratio;
    }
    if (leave == m) return {};  // unbounded
    const double p = T[leave][enter];
    for (double& v : T[leave]) v /= p;
    for (size_t i = 0; i <= m; ++i) {
      if (i == leave || T[i][enter] == 0) continue;
      const double f = T[i][enter];
      for (size_t j = 0; j < cols; ++j) T[i][j] -= f * T[leave][j];
    }
    basis[leave] = enter;
  }
  return {};
}

bool valid(const std::vector<CycleKernel>& kernels) {
  if (kernels.empty() || kernels[0].seconds_per_group.empty()) return false;
  const size_t n = kernels[0].seconds_per_group.size();
  for (const CycleKernel& k : kernels) {
    if (k.seconds_per_group.size() != n || !(k.launches > 0) || !std::isfinite(k.launches)) return false;
    for (double r : k.seconds_per_group)
      if (!(r > 0) || !std::isfinite(r)) return false;
  }
  return true;
}

}  // namespace

double cycle_seconds(const std::vector<CycleKernel>& kernels, const std::vector<uint64_t>& groups) {
  double total = 0;
  for (const CycleKernel& k : kernels) {
    double worst = 0;
    for (size_t d = 0; d < groups.size() && d < k.seconds_per_group.size(); ++d)
      if (groups[d]) worst = std::max(worst, k.seconds_per_group[d] * double(groups[d]));
    total += k.launches * worst;
  }
  return total;
}

std::vector<double> joint_shares(const std::vector<CycleKernel>& kernels) {
  if (!valid(kernels)) return {};
  const size_t n = kernels[0].seconds_per_group.size(), K = kernels.size();
  if (n == 1) return {1.0};
  // Rates and weights scaled to at most 1 (the shares do not change).
  double top_rate = 0, top_weight = 0;
  for (const CycleKernel& k : kernels) {
    top_weight = std::max(top_weight, k.launches);
    for (double r : k.seconds_per_group) top_rate = std::max(top_rate, r);
  }
  // Columns: u_0..u_{n-1}, t_0..t_{K-1}.
  std::vector<std::vector<double>> A;
  std::vector<double> b;
  for (size_t k = 0; k < K; ++k)
    for (size_t d = 0; d < n; ++d) {
      std::vector<double> row(n + K, 0);
      row[d] = kernels[k].seconds_per_group[d] / top_rate;
      row[n + k] = -1;
      A.push_back(std::move(row));
      b.push_back(0);
    }
  std::vector<double> budget(n + K, 0);
  for (size_t k = 0; k < K; ++k) budget[n + k] = kernels[k].launches / top_weight;
  A.push_back(std::move(budget));
  b.push_back(1);
  std::vector<double> c(n + K, 0);
  for (size_t d = 0; d < n; ++d) c[d] = 1;
  std::vector<double> x = simplex_max(A, b, c);
  if (x.empty()) return {};
  double sum = 0;
  for (size_t d = 0; d < n; ++d) sum += std::max(0.0, x[d]);
  if (!(sum > 0)) return {};
  std::vector<double> shares(n);
  for (size_t d = 0; d < n; ++d) shares[d] = std::max(0.0, x[d]) / sum;
  return shares;
}

std::vector<uint64_t> joint_partition(const std::vector<CycleKernel>& kernels, uint64_t total) {
  const std::vector<double> shares = joint_shares(kernels);
  if (shares.empty()) return {};
  const size_t n = shares.size();
  std::vector<uint64_t> g(n, 0);
  uint64_t placed = 0;
  for (size_t d = 0; d < n; ++d) {
    g[d] = std::min<uint64_t>(total - placed, uint64_t(std::floor(shares[d] * double(total))));
    placed += g[d];
  }
  // The remaining groups (fewer than n), each where it adds least.
  for (; placed < total; ++placed) {
    size_t best = 0;
    double best_t = INFINITY;
    for (size_t d = 0; d < n; ++d) {
      ++g[d];
      const double t = cycle_seconds(kernels, g);
      --g[d];
      if (t < best_t) best = d, best_t = t;
    }
    ++g[best];
  }
  // Single groups moved while the time drops (rounding leaves at most one
  // group per device off the real-valued optimum).
  double now = cycle_seconds(kernels, g);
  for (size_t round = 0; round < 4 * n * n; ++round) {
    size_t from = n, to = n;
    double best_t = now;
    for (size_t a = 0; a < n; ++a) {
      if (!g[a]) continue;
      for (size_t b = 0; b < n; ++b) {
        if (a == b) continue;
        --g[a], ++g[b];
        const double t = cycle_seconds(kernels, g);
        ++g[a], --g[b];
        if (t < best_t * (1 - 1e-12)) from = a, to = b, best_t = t;
      }
    }
    if (from == n) break;
    --g[from], ++g[to];
    now = best_t;
  }
  return g;
}

}  // namespace libsplit
