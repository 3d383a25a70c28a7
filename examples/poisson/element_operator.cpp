// poisson/element_operator.cpp — geometric factors and the matrix-free local Laplacian.
#include "element_operator.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace poisson {

namespace {

// Position of G_ab in a node's packed factors: the diagonal first, then the upper triangle.
int factor_index(int dim, int a, int b) {
  if (a == b) return a;
  if (a > b) std::swap(a, b);
  if (dim == 2) return 2;
  return a == 0 ? 3 + (b - 1) : 5;  // (0,1) -> 3, (0,2) -> 4, (1,2) -> 5
}

int power(int base, int exponent) {
  int result = 1;
  for (int i = 0; i < exponent; ++i) result *= base;
  return result;
}

}  // namespace

void ElementOperator::sweep(const Eigen::MatrixXd& m, int axis, const double* u, double* out, bool accumulate) const {
  using Eigen::Map;
  using Eigen::MatrixXd;
  const int n1 = n1_;
  // With x fastest, an element's values form an n1 x n1^(d-1) matrix whose columns run
  // along axis 0, and an n1^(d-1) x n1 matrix whose rows run along the last axis; the
  // middle axis of 3-D is the last axis of each z-slice.
  auto assign = [accumulate](auto&& target, auto&& value) {
    if (accumulate)
      target.noalias() += value;
    else
      target.noalias() = value;
  };
  if (axis == 0) {
    const int columns = nodes_ / n1;
    assign(Map<MatrixXd>(out, n1, columns), m * Map<const MatrixXd>(u, n1, columns));
  } else if (axis == dim_ - 1) {
    const int rows = nodes_ / n1;
    assign(Map<MatrixXd>(out, rows, n1), Map<const MatrixXd>(u, rows, n1) * m.transpose());
  } else {
    const int slice = n1 * n1;
    for (int k = 0; k < n1; ++k)
      assign(Map<MatrixXd>(out + k * slice, n1, n1), Map<const MatrixXd>(u + k * slice, n1, n1) * m.transpose());
  }
}

ElementOperator::ElementOperator(int dim, const GllRule& rule, std::size_t elements,
                                 std::span<const double> coordinates)
    : dim_(dim), n1_(rule.order + 1), nodes_(power(rule.order + 1, dim)), factors_(dim == 2 ? 3 : 6),
      elements_(elements), d_(rule.derivative), dt_(rule.derivative.transpose()),
      weights_(rule.weights.data(), rule.weights.data() + rule.weights.size()) {
  if (dim != 2 && dim != 3) throw std::invalid_argument("element operator: dim must be 2 or 3");
  if (coordinates.size() != local_size() * dim)
    throw std::invalid_argument("element operator: expected " + std::to_string(local_size() * dim) +
                                " coordinates, got " + std::to_string(coordinates.size()));

  g_.assign(local_size() * factors_, 0.0);
  mass_.assign(local_size(), 0.0);

  std::vector<double> x(nodes_), dx(static_cast<std::size_t>(dim) * dim * nodes_);
  for (std::size_t e = 0; e < elements_; ++e) {
    const double* xe = coordinates.data() + e * nodes_ * dim;
    // dx[(c * dim + a) * nodes + p] = d x_c / d r_a at node p.
    for (int c = 0; c < dim; ++c) {
      for (int p = 0; p < nodes_; ++p) x[p] = xe[p * dim + c];
      for (int a = 0; a < dim; ++a) sweep(d_, a, x.data(), dx.data() + (c * dim + a) * nodes_, false);
    }
    // A mirrored element (left-handed node order, as imported meshes may hold) has det J < 0
    // at every node and is as good as its mirror image: the integrals take |det J|. An
    // element whose Jacobian vanishes or changes sign is folded or degenerate.
    double orientation = 0;
    for (int p = 0; p < nodes_; ++p) {
      Eigen::Matrix3d jacobian = Eigen::Matrix3d::Identity();
      for (int c = 0; c < dim; ++c)
        for (int a = 0; a < dim; ++a) jacobian(c, a) = dx[(c * dim + a) * nodes_ + p];
      const double signed_det = jacobian.determinant();
      if (p == 0) orientation = signed_det < 0 ? -1 : 1;
      const double det = orientation * signed_det;
      if (!(det > 0))
        throw std::runtime_error("element operator: local element " + std::to_string(e) + " has a Jacobian of " +
                                 std::to_string(signed_det) + " at node " + std::to_string(p) +
                                 (p == 0 ? "" : ", of the other sign or zero than at node 0") +
                                 ": folded or degenerate");
      double weight = 1;
      for (int a = 0, rest = p; a < dim; ++a, rest /= n1_) weight *= rule.weights[rest % n1_];
      const Eigen::Matrix3d inverse = jacobian.inverse();  // dr_a / dx_c
      const Eigen::Matrix3d metric = weight * det * inverse * inverse.transpose();
      double* g = g_.data() + (e * nodes_ + p) * factors_;
      for (int a = 0; a < dim; ++a)
        for (int b = a; b < dim; ++b) g[factor_index(dim, a, b)] = metric(a, b);
      mass_[e * nodes_ + p] = weight * det;
    }
  }
}

ElementOperator::FaceQuadrature ElementOperator::face_quadrature(std::size_t element, int face,
                                                                 std::span<const double> coordinates) const {
  if (element >= elements_ || face < 0 || face >= 2 * dim_)
    throw std::invalid_argument("element operator: no face " + std::to_string(face) + " of local element " +
                                std::to_string(element));
  const int axis = face / 2;
  const double side = face % 2 == 1 ? 1.0 : -1.0;  // grad r_axis points out of the r+ face
  const double* xe = coordinates.data() + element * nodes_ * dim_;
  std::vector<double> x(nodes_), dx(static_cast<std::size_t>(dim_) * dim_ * nodes_);
  for (int c = 0; c < dim_; ++c) {
    for (int p = 0; p < nodes_; ++p) x[p] = xe[p * dim_ + c];
    for (int a = 0; a < dim_; ++a) sweep(d_, a, x.data(), dx.data() + (c * dim_ + a) * nodes_, false);
  }
  FaceQuadrature quadrature;
  for (int p = 0; p < nodes_; ++p) {
    double weight = 1;
    int index_on_axis = 0;
    for (int a = 0, rest = p; a < dim_; ++a, rest /= n1_) {
      if (a == axis)
        index_on_axis = rest % n1_;
      else
        weight *= weights_[rest % n1_];
    }
    if (index_on_axis != (side > 0 ? n1_ - 1 : 0)) continue;
    Eigen::Matrix3d jacobian = Eigen::Matrix3d::Identity();
    for (int c = 0; c < dim_; ++c)
      for (int a = 0; a < dim_; ++a) jacobian(c, a) = dx[(c * dim_ + a) * nodes_ + p];
    const Eigen::Matrix3d inverse = jacobian.inverse();  // row `axis`: grad r_axis
    const double scale = side * weight * std::abs(jacobian.determinant());
    quadrature.nodes.push_back(p);
    for (int c = 0; c < dim_; ++c) quadrature.area_normals.push_back(scale * inverse(axis, c));
  }
  return quadrature;
}

void ElementOperator::apply_stiffness(std::span<const double> u, std::span<double> out) const {
  if (u.size() != local_size() || out.size() != local_size())
    throw std::invalid_argument("element operator: vector length differs from the local size");
  std::vector<double> gradient(static_cast<std::size_t>(dim_) * nodes_);
  std::vector<double> flux(static_cast<std::size_t>(dim_) * nodes_);
  for (std::size_t e = 0; e < elements_; ++e) {
    const double* ue = u.data() + e * nodes_;
    double* oe = out.data() + e * nodes_;
    const double* ge = g_.data() + e * nodes_ * factors_;
    for (int a = 0; a < dim_; ++a) sweep(d_, a, ue, gradient.data() + a * nodes_, false);
    for (int p = 0; p < nodes_; ++p) {
      const double* g = ge + p * factors_;
      for (int a = 0; a < dim_; ++a) {
        double sum = 0;
        for (int b = 0; b < dim_; ++b) sum += g[factor_index(dim_, a, b)] * gradient[b * nodes_ + p];
        flux[a * nodes_ + p] = sum;
      }
    }
    for (int a = 0; a < dim_; ++a) sweep(dt_, a, flux.data() + a * nodes_, oe, a > 0);
  }
}

std::vector<double> ElementOperator::stiffness_diagonal() const {
  // A^e_pp = sum_a sum_m G_aa(p with p_a -> m) D(m, p_a)^2      (same-direction terms)
  //        + sum_{a != b} G_ab(p) D(p_a, p_a) D(p_b, p_b)         (D_a and D_b meet only at p)
  std::vector<double> diagonal(local_size(), 0.0);
  for (std::size_t e = 0; e < elements_; ++e) {
    const double* ge = g_.data() + e * nodes_ * factors_;
    for (int p = 0; p < nodes_; ++p) {
      int index[3] = {0, 0, 0};
      for (int a = 0, rest = p; a < dim_; ++a, rest /= n1_) index[a] = rest % n1_;
      double sum = 0;
      for (int a = 0, stride = 1; a < dim_; ++a, stride *= n1_) {
        const int line_start = p - index[a] * stride;
        for (int m = 0; m < n1_; ++m) {
          const double dm = d_(m, index[a]);
          sum += ge[(line_start + m * stride) * factors_ + a] * dm * dm;
        }
        for (int b = 0; b < dim_; ++b)
          if (b != a)
            sum += ge[p * factors_ + factor_index(dim_, a, b)] * d_(index[a], index[a]) * d_(index[b], index[b]);
      }
      diagonal[e * nodes_ + p] = sum;
    }
  }
  return diagonal;
}

}  // namespace poisson
