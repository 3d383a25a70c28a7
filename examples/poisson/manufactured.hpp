// poisson/manufactured.hpp — the manufactured problem on an axis-aligned box:
//   u(x) = prod_a g_a(xi_a),  xi_a = (x_a - lo_a) / (hi_a - lo_a) in [0, 1],
//   g_a(xi) = sin(pi xi)   on an axis with walls (u = 0 on both walls: Dirichlet),
//   g_a(xi) = sin(2 pi xi) on a periodic axis (smooth across the seam),
// so -Laplace(u) = f with f = (sum_a k_a^2) u, k_a = pi / L_a or 2 pi / L_a.
// On the unit square that is the textbook u = sin(pi x) sin(pi y).
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
  explicit Manufactured(const Box& box);

  double exact(const double* x) const;
  double source(const double* x) const;
  /// True for a node on a wall of the box (the Dirichlet boundary). Deformed meshes keep
  /// their boundary nodes on the walls, so a relative tolerance of 1e-9 suffices.
  bool on_dirichlet_boundary(const double* x) const;
  /// "sin(pi x) sin(pi y)"-style description of u.
  std::string formula() const;

private:
  Box box_;
  std::array<double, 3> wavenumber_{};
  double tolerance_ = 0;
};

}  // namespace poisson
