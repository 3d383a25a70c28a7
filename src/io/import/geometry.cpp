// io/import/geometry.cpp — coordinates of the GLL nodes of the imported elements, as
// Nek5000's core/genxyz.f builds them (see geometry.hpp).
#include "io/import/geometry.hpp"

#include <gsr/error.hpp>

#include <cmath>
#include <cstddef>
#include <numbers>
#include <string>
#include <vector>

namespace gsr::io::import {
namespace {

/// The GLL points of order N on [-1, 1]: the end points exactly -1 and 1, the others the
/// roots of P'_N, exactly symmetric (0 exactly in the middle for even N).
std::vector<double> gll_reference(int order) {
  if (order < 1)
    throw Error(ErrorCode::invalid_argument, "gll_points: order must be at least 1, not " + std::to_string(order));
  // Newton's method on the Legendre recurrence, started from the Chebyshev-Gauss-Lobatto
  // points, converges in a few steps.
  const int n = order;
  std::vector<double> x(static_cast<std::size_t>(n) + 1);
  for (int i = 0; i <= n; ++i) {
    double xi = -std::cos(std::numbers::pi * i / n);
    for (int iteration = 0; iteration < 100 && i > 0 && i < n; ++iteration) {
      // P_{n}, P_{n-1} at xi; then P'_n and P''_n from the Legendre ODE.
      double p_prev = 1, p = xi;
      for (int k = 2; k <= n; ++k) {
        const double p_next = ((2 * k - 1) * xi * p - (k - 1) * p_prev) / k;
        p_prev = p;
        p = p_next;
      }
      const double dp = n * (p_prev - xi * p) / (1 - xi * xi);
      const double d2p = (2 * xi * dp - n * (n + 1) * p) / (1 - xi * xi);
      const double step = dp / d2p;
      xi -= step;
      if (std::abs(step) < 1e-16) break;
    }
    x[static_cast<std::size_t>(i)] = xi;
  }
  x.front() = -1;
  x.back() = 1;
  for (int i = 0; i <= n / 2; ++i) {  // exact symmetry, and 0 exactly in the middle
    const double mean = (x[static_cast<std::size_t>(n - i)] - x[static_cast<std::size_t>(i)]) / 2;
    x[static_cast<std::size_t>(i)] = -mean;
    x[static_cast<std::size_t>(n - i)] = mean;
  }
  return x;
}

}  // namespace

std::vector<double> gll_points(int order) {
  std::vector<double> x = gll_reference(order);
  for (double& xi : x) xi = (1 + xi) / 2;
  return x;
}

}  // namespace gsr::io::import
