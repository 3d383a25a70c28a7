// io/import/geometry.hpp — coordinates of the GLL nodes of order N from an element's
// geometry: trilinear from its corners, from its quadratic nodes (quad9/hex27, quad8/hex20),
// and with Nek5000's curved sides as core/genxyz.f builds them ('m' midpoints, 'C' arcs).
#pragma once

#include "io/import/element_block.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gsr::io::import {

struct Geometry {
  /// count * (N+1)^dim nodes, dim values each (x, y[, z]), in the node order of Numbering.
  std::vector<double> coordinates;
  /// One line per curved side of a type not built (connectivity is unaffected), naming the
  /// element (1-based, as Nek5000 counts) and the type.
  std::vector<std::string> warnings;
  /// Elements whose Jacobian is negative at every corner (mirrored, left-handed: accepted,
  /// the numbering does not depend on handedness).
  std::int64_t mirrored = 0;
};

/// Rank-local. Throws Error(io) naming the file and the element (1-based) for an inverted
/// element (a non-positive Jacobian at a corner) or a degenerate one (zero Jacobian).
Geometry node_coordinates(const ElementBlock& block, int order);

/// The Gauss-Lobatto-Legendre points of order N on [0, 1] (N + 1 of them, ascending).
std::vector<double> gll_points(int order);

}  // namespace gsr::io::import
