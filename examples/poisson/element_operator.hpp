// poisson/element_operator.hpp — the spectral-element Laplacian, element by element.
//
// On element e with GLL nodes x(r), r in [-1,1]^d, the local stiffness matrix is
//   A^e = sum_{a,b} D_a^T  G_ab  D_b,   G_ab = w |det J| (J^{-1} J^{-T})_ab   (diagonal in the nodes),
// where D_a differentiates along reference direction a (a tensor product of the 1-D matrix
// D with identities), w is the tensor-product GLL weight and J = dx/dr the Jacobian at
// the node. It is applied matrix-free: d derivative sweeps, a pointwise multiply by G,
// d transposed sweeps; O(d (N+1)^{d+1}) per element, never forming A^e. The mass matrix
// B = w |det J| is diagonal (GLL quadrature on GLL nodes). Curved and deformed elements need
// nothing special: their shape enters only through J, computed from the node coordinates
// with the same D.
//
// Local vectors hold element after element, nodes x fastest, then y, then z: the layout
// of gsr mesh files, so a mesh's ids and coordinates line up with them directly.
#pragma once

#include "gll.hpp"

#include <Eigen/Dense>

#include <cstddef>
#include <span>
#include <vector>

namespace poisson {

class ElementOperator {
public:
  /// Geometric factors for `elements` elements of order rule.order in `dim` (2 or 3)
  /// dimensions from their node coordinates ([node * dim + c], element after element).
  /// A mirrored element (det J < 0 at every node) is accepted: the factors use |det J|.
  /// Throws std::runtime_error naming the element if its Jacobian vanishes or changes sign.
  ElementOperator(int dim, const GllRule& rule, std::size_t elements, std::span<const double> coordinates);

  int dim() const noexcept { return dim_; }
  int nodes_per_element() const noexcept { return nodes_; }
  std::size_t elements() const noexcept { return elements_; }
  std::size_t local_size() const noexcept { return elements_ * static_cast<std::size_t>(nodes_); }

  /// out = A_L u: the unassembled (block-diagonal) stiffness applied to a local vector.
  void apply_stiffness(std::span<const double> u, std::span<double> out) const;

  /// The diagonal of A_L (unassembled).
  std::vector<double> stiffness_diagonal() const;

  /// The diagonal of the unassembled mass matrix B_L = w |det J|.
  const std::vector<double>& mass() const noexcept { return mass_; }

  /// GLL quadrature on one face of one element, for boundary integrals
  /// int_face q . n phi dS = sum_i area_normals[i] . q(x_i) phi(x_i).
  struct FaceQuadrature {
    std::vector<int> nodes;            // the element's nodes on the face
    std::vector<double> area_normals;  // [i * dim + c]: outward unit normal times w_face dS/dr
  };
  /// Face `face` (2 axis + side: r-, r+, s-, s+, t-, t+) of local element `element`, from the
  /// coordinates the operator was built from: the outward normal times the surface element
  /// is +-|det J| grad r_axis, whatever the element's handedness.
  FaceQuadrature face_quadrature(std::size_t element, int face, std::span<const double> coordinates) const;

private:
  int dim_;
  int n1_;       // N + 1
  int nodes_;    // (N+1)^dim
  int factors_;  // independent entries of the symmetric G: 3 in 2-D, 6 in 3-D
  std::size_t elements_;
  Eigen::MatrixXd d_, dt_;
  std::vector<double> weights_;  // the 1-D GLL weights
  std::vector<double> g_;        // [element][node][factor]: G_00, G_11, (G_22), G_01, (G_02, G_12)
  std::vector<double> mass_;

  // out (=, or += when accumulate) M applied along reference axis `axis` of one element.
  void sweep(const Eigen::MatrixXd& m, int axis, const double* u, double* out, bool accumulate) const;
};

}  // namespace poisson
