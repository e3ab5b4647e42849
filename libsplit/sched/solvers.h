// Granularity solvers (Huchant 2016, section 5): given the shares used at
// the last launch and the per-group time f_i each device showed, propose
// the shares of the next launch.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include <Eigen/Dense>

namespace libsplit::sched {

// F(x)_i = T / (f_i * numgroups) with T = numgroups / sum_j 1/f_j, i.e. the
// shares proportional to the devices' speeds 1/f_i. f_i <= 0 means "no
// measurement"; such devices keep share 0 unless every f is unknown.
std::vector<double> fixed_point_map(const std::vector<double>& f);

// One solver per LaunchKey; holds whatever state its method needs.
class GranularitySolver {
 public:
  virtual ~GranularitySolver() = default;
  // x: shares actually used (whole groups / numgroups); f: per-group time
  // of every device at x (stale or prior for devices that got no group).
  virtual std::vector<double> next(const std::vector<double>& x,
                                   const std::vector<double>& f) = 0;
  // Forget curvature information (load changed, warm start, ...).
  virtual void reset() {}
};

// Always the same shares (uniform and static schedulers).
class FixedSharesSolver final : public GranularitySolver {
 public:
  explicit FixedSharesSolver(std::vector<double> shares) : shares_(std::move(shares)) {}
  std::vector<double> next(const std::vector<double>&, const std::vector<double>&) override {
    return shares_;
  }

 private:
  std::vector<double> shares_;
};

// x_{k+1} = F(x_k).
class FixedPointSolver final : public GranularitySolver {
 public:
  std::vector<double> next(const std::vector<double>& x, const std::vector<double>& f) override;
};

// Broyden's ("good") method on G(x) = x - F(x) with an inverse-Jacobian
// approximation H (starts at I, so the first step is a fixed-point step).
// Safeguards: a step is at most twice as long (max norm) as the fixed-point
// step and is projected onto the simplex; when ||G|| did not decrease
// enough (kRequiredDecrease), the step is a fixed-point step and H is reset; H is reset every
// kResetPeriod launches so that drifting loads cannot leave it stale.
class BroydenSolver final : public GranularitySolver {
 public:
  std::vector<double> next(const std::vector<double>& x, const std::vector<double>& f) override;
  void reset() override { have_previous_ = false; }

  static constexpr unsigned kResetPeriod = 12;
  // A Broyden step must cut ||G|| at least this much, else the next step is
  // a fixed-point step (a drifting load makes the secant information stale).
  static constexpr double kRequiredDecrease = 0.7;
  // Each share stays at least this fraction of the fixed-point share.
  static constexpr double kMinFractionOfFixedPoint = 0.5;

 private:
  bool have_previous_ = false;
  unsigned since_reset_ = 0;
  Eigen::VectorXd previous_x_, previous_g_;
  double previous_merit_ = 0;
  Eigen::MatrixXd inverse_jacobian_;
};

}  // namespace libsplit::sched
