// poisson/manufactured.cpp — exact solution, source and walls of the model problem.
#include "manufactured.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>
#include <stdexcept>

namespace poisson {

Box bounding_box(int dim, std::span<const double> coordinates, const std::array<double, 3>& periods, MPI_Comm comm) {
  std::array<double, 6> local;  // -lo and hi, so one MPI_MAX reduces both
  local.fill(-std::numeric_limits<double>::max());
  for (std::size_t i = 0; i < coordinates.size(); ++i) {
    const int a = static_cast<int>(i % dim);
    local[a] = std::max(local[a], -coordinates[i]);
    local[3 + a] = std::max(local[3 + a], coordinates[i]);
  }
  std::array<double, 6> global;
  MPI_Allreduce(local.data(), global.data(), 6, MPI_DOUBLE, MPI_MAX, comm);
  Box box;
  box.dim = dim;
  for (int a = 0; a < dim; ++a) {
    box.lo[a] = -global[a];
    box.hi[a] = global[3 + a];
    box.periodic[a] = periods[a] != 0;
    if (!(box.hi[a] > box.lo[a])) throw std::runtime_error("the mesh has no extent along one axis");
  }
  return box;
}

Manufactured::Manufactured(const Box& box, Kind kind) : box_(box), kind_(kind) {
  bool has_wall = false;
  double extent = 0;
  for (int a = 0; a < box.dim; ++a) {
    const double length = box.hi[a] - box.lo[a];
    if (kind == Kind::walls) {
      wavenumber_[a] = (box.periodic[a] ? 2 : 1) * std::numbers::pi / length;
    } else {
      wavenumber_[a] = 2 * std::numbers::pi / length;
      phase_[a] = a + 1;
    }
    has_wall = has_wall || !box.periodic[a];
    extent = std::max(extent, length);
  }
  if (kind == Kind::walls && !has_wall)
    throw std::runtime_error("the mesh is periodic along every axis: the Dirichlet problem needs a wall");
  tolerance_ = 1e-9 * extent;
}

double Manufactured::exact(const double* x) const {
  double u = 1;
  for (int a = 0; a < box_.dim; ++a) u *= std::sin(wavenumber_[a] * (x[a] - box_.lo[a]) + phase_[a]);
  return u;
}

double Manufactured::source(const double* x) const {
  double k2 = 0;
  for (int a = 0; a < box_.dim; ++a) k2 += wavenumber_[a] * wavenumber_[a];
  return k2 * exact(x);
}

void Manufactured::gradient(const double* x, double* gradient) const {
  for (int a = 0; a < box_.dim; ++a) {
    double g = 1;
    for (int b = 0; b < box_.dim; ++b) {
      const double angle = wavenumber_[b] * (x[b] - box_.lo[b]) + phase_[b];
      g *= b == a ? wavenumber_[b] * std::cos(angle) : std::sin(angle);
    }
    gradient[a] = g;
  }
}

bool Manufactured::on_dirichlet_boundary(const double* x) const {
  for (int a = 0; a < box_.dim; ++a)
    if (!box_.periodic[a] && (std::abs(x[a] - box_.lo[a]) <= tolerance_ || std::abs(x[a] - box_.hi[a]) <= tolerance_))
      return true;
  return false;
}

std::string Manufactured::formula() const {
  static const char* names[] = {"x", "y", "z"};
  std::ostringstream text;
  for (int a = 0; a < box_.dim; ++a) {
    if (a) text << ' ';
    const double length = box_.hi[a] - box_.lo[a];
    text << "sin(" << (kind_ == Kind::general || box_.periodic[a] ? "2 pi " : "pi ");
    if (box_.lo[a] == 0)
      text << names[a];
    else
      text << '(' << names[a] << (box_.lo[a] < 0 ? " + " : " - ") << std::abs(box_.lo[a]) << ')';
    if (length != 1) text << '/' << length;
    if (phase_[a] != 0) text << " + " << phase_[a];
    text << ')';
  }
  return text.str();
}

}  // namespace poisson
