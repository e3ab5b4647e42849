#include "solvers.h"

#include <cmath>

#include "rounding.h"

namespace libsplit::sched {

std::vector<double> fixed_point_map(const std::vector<double>& f) {
  std::vector<double> speed(f.size(), 0.0);
  for (size_t i = 0; i < f.size(); ++i)
    if (f[i] > 0 && std::isfinite(f[i])) speed[i] = 1.0 / f[i];
  return normalized(speed);
}

std::vector<double> FixedPointSolver::next(const std::vector<double>&,
                                           const std::vector<double>& f) {
  return fixed_point_map(f);
}

namespace {
Eigen::VectorXd to_vector(const std::vector<double>& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.data(), Eigen::Index(v.size()));
}
std::vector<double> to_std(const Eigen::VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}
}  // namespace

std::vector<double> BroydenSolver::next(const std::vector<double>& x_used,
                                        const std::vector<double>& f) {
  const Eigen::Index n = Eigen::Index(x_used.size());
  const Eigen::VectorXd x = to_vector(x_used);
  const Eigen::VectorXd fixed = to_vector(fixed_point_map(f));
  const Eigen::VectorXd g = x - fixed;
  const double merit = g.lpNorm<1>();

  bool fixed_point_step = false;
  if (!have_previous_ || previous_x_.size() != n || ++since_reset_ >= kResetPeriod) {
    inverse_jacobian_ = Eigen::MatrixXd::Identity(n, n);
    since_reset_ = 0;
    fixed_point_step = true;
  } else {
    const Eigen::VectorXd s = x - previous_x_;
    const Eigen::VectorXd y = g - previous_g_;
    // Below a group or so the difference is mostly rounding and noise.
    if (s.lpNorm<1>() > 1e-4) {
      const Eigen::VectorXd hy = inverse_jacobian_ * y;
      const double denominator = s.dot(hy);
      if (std::fabs(denominator) > 1e-12 * s.squaredNorm())
        inverse_jacobian_ += (s - hy) * (s.transpose() * inverse_jacobian_) / denominator;
    }
    if (merit > kRequiredDecrease * previous_merit_ || !inverse_jacobian_.allFinite()) {
      inverse_jacobian_ = Eigen::MatrixXd::Identity(n, n);
      since_reset_ = 0;
      fixed_point_step = true;
    }
  }
  previous_x_ = x;
  previous_g_ = g;
  previous_merit_ = merit;
  have_previous_ = true;

  if (fixed_point_step) return to_std(fixed);
  Eigen::VectorXd step = -(inverse_jacobian_ * g);
  // Trust region: a Broyden step may be at most twice the fixed-point step
  // (|G|), so that a poor Jacobian estimate cannot throw the split far away.
  const double limit = 2.0 * g.lpNorm<Eigen::Infinity>() + 1e-3;
  const double length = step.lpNorm<Eigen::Infinity>();
  if (length > limit) step *= limit / length;
  std::vector<double> next = project_to_simplex(to_std(x + step));
  // Never starve a device the fixed point keeps: its measurements are what
  // the next steps need (a device at 0 only has stale times).
  for (Eigen::Index i = 0; i < n; ++i)
    next[size_t(i)] = std::max(next[size_t(i)], kMinFractionOfFixedPoint * fixed[i]);
  return normalized(next);
}

}  // namespace libsplit::sched
