// poisson/gll.cpp — Gauss-Lobatto-Legendre points, weights and derivative matrix.
#include "gll.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace poisson {

double legendre(int degree, double x) {
  if (degree == 0) return 1.0;
  double previous = 1.0, current = x;
  for (int k = 1; k < degree; ++k) {
    const double next = ((2 * k + 1) * x * current - k * previous) / (k + 1);
    previous = current;
    current = next;
  }
  return current;
}

GllRule make_gll_rule(int order) {
  if (order < 1) throw std::invalid_argument("GLL rule: order must be >= 1, got " + std::to_string(order));
  const int n = order + 1;
  GllRule rule;
  rule.order = order;
  rule.points.resize(n);

  // Newton's iteration on (1 - x^2) P_N'(x) = 0 written with the recurrence
  // (1 - x^2) P_N' = N (P_{N-1} - x P_N), started from the Chebyshev-Gauss-Lobatto points,
  // which interlace with the GLL points closely enough that every start converges to its
  // own root (the ends stay fixed at +-1).
  for (int i = 0; i < n; ++i) {
    double x = -std::cos(std::numbers::pi * i / order);
    if (i > 0 && i < order) {
      for (int iteration = 0; iteration < 100; ++iteration) {
        const double p = legendre(order, x), p_prev = legendre(order - 1, x);
        // f = P_{N-1} - x P_N and f' = -(N+1) P_N (from the Legendre identities).
        const double step = (p_prev - x * p) / (-(order + 1) * p);
        x -= step;
        if (std::abs(step) < 1e-16) break;
      }
    }
    rule.points[i] = x;
  }

  rule.weights.resize(n);
  Eigen::VectorXd p_at(n);
  for (int i = 0; i < n; ++i) {
    p_at[i] = legendre(order, rule.points[i]);
    rule.weights[i] = 2.0 / (order * (order + 1) * p_at[i] * p_at[i]);
  }

  // Closed form of the Lagrange derivatives at GLL points (Canuto et al., Spectral
  // Methods, 2.3): off the diagonal P_N(x_i) / (P_N(x_j) (x_i - x_j)); on it zero except
  // at the two ends, where it is -+N(N+1)/4.
  rule.derivative = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) rule.derivative(i, j) = p_at[i] / (p_at[j] * (rule.points[i] - rule.points[j]));
  rule.derivative(0, 0) = -order * (order + 1) / 4.0;
  rule.derivative(order, order) = order * (order + 1) / 4.0;
  return rule;
}

}  // namespace poisson
