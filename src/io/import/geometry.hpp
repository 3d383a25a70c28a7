// io/import/geometry.hpp — coordinates of the GLL nodes of order N from an element's
// geometry: trilinear from its corners, from its quadratic nodes (quad9/hex27, quad8/hex20),
// and with Nek5000's curved sides as core/genxyz.f builds them ('m' midpoints, 'C' arcs).
//
// As genxyz does (geometry == 2, a .re2):
//   - no 'm' side (or N = 1): the (bi/tri)linear map of the corners at the GLL points
//     (xyzlin);
//   - 'm' sides (params[0..2]: the edge's midpoint x, y, z; any edge): the linear element at
//     3^dim points, the given midpoints put in, each edge's departure from the linear
//     element blended linearly into the faces and the interior (gh_face_extend, type 2),
//     then the quadratic map of those points at the GLL points (xyzquad);
//   - 'C' sides (params[0]: signed radius R; the edges in the x-y plane: in 2-D any edge, in
//     3-D edges 0-7): the arc from the edge's low corner to its high corner through the
//     GLL points of its angle, its departure from the straight edge added to x and y and
//     blended linearly across the element (and along t in 3-D) (arcsrf). Sign: walking the
//     edge from low corner to high corner, R > 0 puts the centre on the left (seen from +z)
//     and bulges the edge to the right, R < 0 the other way. arcsrf's R is the same rule for
//     prenek's edge direction (corner i to i+1), so for the edges prenek runs the other way
//     (its sides 3, 4, 7, 8: our 2-D edges 1, 2, 3-D edges 1, 4, 3, 6) the .re2 reader
//     negates it; on a counterclockwise element a positive Nek5000 radius is a convex side.
//     |2 R| must exceed the edge's length.
//   - other types ('s', 'e', ... and 'C' on an edge along t): not built, a warning each.
// geometry == 3: the quadratic map of the 3^dim points (curves are not applied: a warning).
//
// The Jacobian of that map is checked at every corner: all positive is a right-handed
// element, all negative a mirrored one (accepted and counted: the numbering does not care),
// mixed signs an inverted element and |J| <= 1e-12 times the product of the corner's
// tangent lengths a degenerate one (both errors). Only the corners are checked: a side
// curved across the element can pass.
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

/// Rank-local (wrap it in io::agreed). Throws Error(io) naming the file and the element
/// (1-based) for an inverted element (the Jacobian changes sign between corners;
/// E-IMPORT-INVERTED-ELEMENT), a degenerate one (zero Jacobian at a corner;
/// E-IMPORT-DEGENERATE-ELEMENT) or an arc whose radius cannot span its edge
/// (E-IMPORT-ARC-RADIUS); Error(invalid_argument) for an order below 1 or a block whose
/// points do not fit its counts.
Geometry node_coordinates(const ElementBlock& block, int order);

/// The Gauss-Lobatto-Legendre points of order N on [0, 1] (N + 1 of them, ascending; 0 and 1
/// exactly, 1/2 exactly in the middle for even N): (1 + x) / 2 for the roots x of
/// (1 - x^2) P'_N(x), found by Newton's method. The one copy in gsr (gsr-mesh box uses it).
std::vector<double> gll_points(int order);

}  // namespace gsr::io::import
