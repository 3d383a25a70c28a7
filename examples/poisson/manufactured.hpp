// poisson/manufactured.hpp — the manufactured problem on an axis-aligned box:
//   u(x) = prod_a g_a(xi_a),  xi_a = (x_a - lo_a) / (hi_a - lo_a) in [0, 1],
//   g_a(xi) = sin(pi xi)   on an axis with walls (u = 0 on both walls: Dirichlet),
//   g_a(xi) = sin(2 pi xi) on a periodic axis (smooth across the seam),
// so -Laplace(u) = f with f = (sum_a k_a^2) u, k_a = pi / L_a or 2 pi / L_a.
// On the unit square that is the textbook u = sin(pi x) sin(pi y).
//
// On a mesh whose file names its boundary faces (an imported mesh, /mesh/boundary) the
// domain is whatever the elements cover, so the problem assumes no box and no zero on the
// boundary (Kind::general):
//   u(x) = prod_a sin(k_a (x_a - lo_a) + phi_a),  k_a = 2 pi / L_a,  phi = (1, 2, 3) radians,
// one period across the bounding box along each axis (so also smooth across a periodic
// seam), with the boundary values u itself (inhomogeneous Dirichlet) and the same
// f = (sum_a k_a^2) u. The box only scales the wavenumbers.
#pragma once

#include <mpi.h>

#include <array>
#include <span>
#include <string>

namespace poisson {

struct Box {
  int dim = 0;
  std::array<double, 3> lo{}, hi{};
  std::array<bool, 3> periodic{};
};

/// The bounding box of all ranks' node coordinates (collective). An axis is periodic when
/// its entry of `periods` (the mesh file's attribute) is non-zero.
Box bounding_box(int dim, std::span<const double> coordinates, const std::array<double, 3>& periods, MPI_Comm comm);

class Manufactured {
public:
  enum class Kind {
    walls,    // u = 0 on the walls of the box (sin(pi xi) per walled axis)
    general,  // no box assumed: shifted full periods, non-zero on the boundary
  };

  explicit Manufactured(const Box& box, Kind kind = Kind::walls);

  double exact(const double* x) const;
  double source(const double* x) const;
  /// grad u at x, into gradient[0..dim).
  void gradient(const double* x, double* gradient) const;
  /// Kind::walls: true for a node on a wall of the box (the Dirichlet boundary). Deformed meshes keep
  /// their boundary nodes on the walls, so a relative tolerance of 1e-9 suffices.
  bool on_dirichlet_boundary(const double* x) const;
  /// "sin(pi x) sin(pi y)"-style description of u.
  std::string formula() const;

private:
  Box box_;
  Kind kind_;
  std::array<double, 3> wavenumber_{};
  std::array<double, 3> phase_{};
  double tolerance_ = 0;
};

}  // namespace poisson
