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
  /// are one vertex (genmap's kind of tolerance).
  double tolerance = 0.1;
};

struct Vertices {
  /// count * corners ids, lexicographic corners, positive; two corners share an id exactly
  /// when they are one vertex of the mesh or periodic images of one. The ids depend only on
  /// the input, never on the rank count.
  std::vector<std::int64_t> ids;
  std::int64_t periodic_face_pairs = 0;  // over all ranks: P record pairs, or faces joined by $Periodic
};

/// Collective over comm. Throws Error(io) on every rank, naming the file and the elements,
/// for periodic pairs that do not match (no corner correspondence within tolerance, or not
/// reciprocal) and for corners too close to be told apart.
Vertices match_vertices(const ElementBlock& block, MPI_Comm comm, const MatchOptions& options = {});

}  // namespace gsr::io::import
