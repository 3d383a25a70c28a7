// poisson/conjugate_gradients.hpp — preconditioned conjugate gradients on continuous
// spectral-element vectors. The operator, the preconditioner and the inner products come
// from the caller, so the iteration itself knows nothing about elements, ranks or gs.
#pragma once

#include <array>
#include <functional>
#include <span>
#include <vector>

namespace poisson {

struct CgOperators {
  std::function<void(std::span<const double> in, std::span<double> out)> apply;         // out = A in
  std::function<void(std::span<const double> in, std::span<double> out)> precondition;  // out = M^-1 in
  std::function<double(std::span<const double>, std::span<const double>)> dot;
  /// {a.b, c.d} with one global reduction (saves a collective per iteration).
  std::function<std::array<double, 2>(std::span<const double>, std::span<const double>, std::span<const double>,
                                      std::span<const double>)>
      dot2;
};

struct CgOptions {
  double tolerance = 1e-10;  // stop when ||r|| <= tolerance * ||b|| (norms from `dot`)
  int max_iterations = 1000;
};

struct CgResult {
  int iterations = 0;
  bool converged = false;
  double relative_residual = 0;  // ||r|| / ||b|| at exit
};

/// Solves A x = b from the initial guess in x.
CgResult conjugate_gradients(const CgOperators& ops, std::span<const double> b, std::span<double> x,
                             const CgOptions& options);

}  // namespace poisson
