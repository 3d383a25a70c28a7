// poisson/conjugate_gradients.cpp — the PCG iteration.
#include "conjugate_gradients.hpp"

#include <cmath>

namespace poisson {

CgResult conjugate_gradients(const CgOperators& ops, std::span<const double> b, std::span<double> x,
                             const CgOptions& options) {
  const std::size_t n = b.size();
  std::vector<double> r(n), z(n), p(n), ap(n);

  ops.apply(x, ap);
  for (std::size_t i = 0; i < n; ++i) r[i] = b[i] - ap[i];
  ops.precondition(r, z);
  const auto [bb, rz0] = ops.dot2(b, b, r, z);
  double rz = rz0;
  const double b_norm = std::sqrt(bb);
  p = z;

  CgResult result;
  if (b_norm == 0) {  // x = 0 is the answer
    for (double& xi : x) xi = 0;
    result.converged = true;
    return result;
  }
  result.relative_residual = std::sqrt(ops.dot(r, r)) / b_norm;
  if (result.relative_residual <= options.tolerance) {
    result.converged = true;
    return result;
  }

  while (result.iterations < options.max_iterations) {
    ops.apply(p, ap);
    const double alpha = rz / ops.dot(p, ap);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * ap[i];
    }
    ++result.iterations;
    ops.precondition(r, z);
    const auto [rr, rz_next] = ops.dot2(r, r, r, z);
    result.relative_residual = std::sqrt(rr) / b_norm;
    if (result.relative_residual <= options.tolerance) {
      result.converged = true;
      break;
    }
    const double beta = rz_next / rz;
    rz = rz_next;
    for (std::size_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
  }
  return result;
}

}  // namespace poisson
