// poisson/gll.hpp — the 1-D Gauss-Lobatto-Legendre rule of order N on [-1, 1]: the N+1
// points (the ends and the roots of P_N'), their quadrature weights, and the derivative
// matrix of the Lagrange interpolants through them. Every element operator of the solver
// is a tensor product of these three.
#pragma once

#include <Eigen/Dense>

namespace poisson {

struct GllRule {
  int order = 0;               // N
  Eigen::VectorXd points;      // N+1 points, ascending, points[0] = -1, points[N] = 1
  Eigen::VectorXd weights;     // exact for polynomials of degree <= 2N-1
  Eigen::MatrixXd derivative;  // D(i, j) = l_j'(points[i]): (D u)_i = u'(points[i]) for u of degree <= N
};

/// The rule of order N >= 1. Throws std::invalid_argument for N < 1.
GllRule make_gll_rule(int order);

/// P_N(x), the Legendre polynomial of degree N.
double legendre(int degree, double x);

}  // namespace poisson
