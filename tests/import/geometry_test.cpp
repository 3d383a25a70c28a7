// geometry_test.cpp — the GLL nodes of imported elements (io/import/geometry.hpp) against
// formulas worked out independently: the GLL points, affine and quadratic maps, Nek5000's
// curved sides ('m' midpoints, 'C' arcs), and the Jacobian check (E-IMPORT-INVERTED-ELEMENT,
// E-IMPORT-DEGENERATE-ELEMENT, E-IMPORT-ARC-RADIUS).
#include "io/import/geometry.hpp"

#include <gsr/error.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using gsr::io::import::gll_points;

/// P_n(x) by the three-term recurrence.
double legendre(int n, double x) {
  double p0 = 1, p1 = x;
  if (n == 0) return p0;
  for (int k = 2; k <= n; ++k) {
    const double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
    p0 = p1;
    p1 = p2;
  }
  return p1;
}

TEST(GllPoints, KnownValues) {
  EXPECT_EQ(gll_points(1), (std::vector<double>{0, 1}));
  EXPECT_EQ(gll_points(2), (std::vector<double>{0, 0.5, 1}));
  const std::vector<double> four = gll_points(4);  // on [-1, 1]: 0, +-1, +-sqrt(3/7)
  ASSERT_EQ(four.size(), 5u);
  EXPECT_EQ(four[0], 0.0);
  EXPECT_NEAR(four[1], (1 - std::sqrt(3.0 / 7.0)) / 2, 1e-15);
  EXPECT_EQ(four[2], 0.5);
  EXPECT_NEAR(four[3], (1 + std::sqrt(3.0 / 7.0)) / 2, 1e-15);
  EXPECT_EQ(four[4], 1.0);
  // N = 3: +-1/sqrt(5) on [-1, 1].
  const std::vector<double> three = gll_points(3);
  EXPECT_NEAR(three[1], (1 - 1 / std::sqrt(5.0)) / 2, 1e-15);
  EXPECT_NEAR(three[2], (1 + 1 / std::sqrt(5.0)) / 2, 1e-15);
}

TEST(GllPoints, AreTheRootsOfTheLegendreDerivativeAndIntegrateExactly) {
  for (const int n : {5, 7, 12, 20}) {
    const std::vector<double> p = gll_points(n);
    ASSERT_EQ(p.size(), static_cast<std::size_t>(n) + 1);
    EXPECT_EQ(p.front(), 0.0);
    EXPECT_EQ(p.back(), 1.0);
    for (std::size_t i = 1; i < p.size(); ++i) EXPECT_LT(p[i - 1], p[i]);
    for (std::size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(p[i] + p[p.size() - 1 - i], 1.0, 2e-16);
    // Interior points: P'_n(x) = n (P_{n-1}(x) - x P_n(x)) / (1 - x^2) vanishes at x = 2p - 1.
    for (std::size_t i = 1; i + 1 < p.size(); ++i) {
      const double x = 2 * p[i] - 1;
      EXPECT_NEAR(n * (legendre(n - 1, x) - x * legendre(n, x)) / (1 - x * x), 0.0, 1e-12 * n * n) << n << " " << i;
    }
    // Gauss-Lobatto quadrature with the weights 2 / (n (n+1) P_n(x)^2) integrates x^(2n-2)
    // over [-1, 1] exactly (degree <= 2n-1).
    double integral = 0;
    for (const double pi : p) {
      const double x = 2 * pi - 1;
      integral += 2.0 / (n * (n + 1) * legendre(n, x) * legendre(n, x)) * std::pow(x, 2 * n - 2);
    }
    EXPECT_NEAR(integral, 2.0 / (2 * n - 1), 1e-13) << n;
  }
}

TEST(GllPoints, OrderBelowOneIsRefused) { EXPECT_THROW(gll_points(0), gsr::Error); }

}  // namespace
