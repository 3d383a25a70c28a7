// io/import/vertices.hpp — which corners of the mesh are one vertex: the file's vertex ids
// when it has them, else corners matched by coordinates; then periodic images joined.
#pragma once

#include "io/import/element_block.hpp"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace gsr::io::import {

struct MatchOptions {
  /// Corners closer than this fraction of the shortest edge of the elements they belong to
  /// are one vertex (genmap's kind of tolerance). Exactly: every element has the radius
  /// tolerance x its shortest edge (the straight distance between the two corners of an
  /// edge); corners a and b are one vertex when |x_a - x_b| < min(radius_a, radius_b). The
  /// relation must group the corners cleanly: every corner close to a corner must be close
  /// to all the corners close to that one, and no two corners of one element may be close;
  /// otherwise the corners are too close to tell apart at this tolerance (an error naming
  /// them). Periodic faces (P records) match when a translation brings each corner within
  /// tolerance x the smaller of the two faces' shortest edges of its image. In (0, 1).
  double tolerance = 0.1;
};

struct Vertices {
  /// count * corners ids, lexicographic corners, positive; two corners share an id exactly
  /// when they are one vertex of the mesh or periodic images of one. The ids depend only on
  /// the input, never on the rank count: an id is the smallest, over the corners of its
  /// vertex and of the vertex's periodic images, of the file's id, or without file ids of
  /// element * corners_per_element(dim) + corner + 1 (element 0-based, global). Ids are
  /// not dense.
  std::vector<std::int64_t> ids;
  /// Over all ranks: the pairs of faces that P records join (each pair once), plus, with
  /// Gmsh's $Periodic, the pairs of element faces that the node pairs join: two faces of
  /// different corner ids whose corners have the same ids once the periodic images are
  /// joined (a face shared by two elements counts as one face).
  std::int64_t periodic_face_pairs = 0;
};

/// Collective over comm. Throws Error(io) on every rank, naming the file and the elements,
/// for periodic pairs that do not match (no corner correspondence within tolerance, or not
/// reciprocal) and for corners too close to be told apart (docs/errors.md, "Matching corners
/// and periodic faces"); Error(invalid_argument) for a tolerance outside (0, 1).
///
/// No rank holds the whole mesh: corners are matched in cells of space owned by the ranks
/// (each corner sent with gsr::transfer to the cells it may match in), P records are checked
/// at the partner element's rank, and only the periodic pairs (as many as the periodic
/// boundary's corners) are gathered on every rank to be joined.
Vertices match_vertices(const ElementBlock& block, MPI_Comm comm, const MatchOptions& options = {});

}  // namespace gsr::io::import
