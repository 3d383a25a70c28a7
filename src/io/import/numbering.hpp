// io/import/numbering.hpp — global ids for the GLL nodes of order N from the elements' corner
// vertex ids: vertices, then edges, faces and element interiors, numbered so that two nodes
// share an id exactly when they are one point of the mesh, compact (1..M) and the same at
// any rank count.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gsr::io::import {

struct Numbering {
  /// local elements * (N+1)^dim ids, element after element, node (a, b, c) at
  /// a + (N+1) b + (N+1)^2 c.
  std::vector<std::int64_t> ids;
  std::int64_t total = 0;  // M: distinct ids
  // Distinct entities over the whole mesh. In 2-D the faces are the edges and `faces` is 0,
  // so that M = V + (N-1) E + (N-1)^2 F + (N-1)^3 K in 3-D and V + (N-1) E + (N-1)^2 K in 2-D.
  std::int64_t vertices = 0, edges = 0, faces = 0, elements = 0;
  /// Per local element and face (element * 2 dim + face): the element on the other side
  /// (0-based, global) and its face, or -1 / -1 for a face no other element shares.
  std::vector<std::int64_t> neighbor_element;
  std::vector<int> neighbor_face;
};

/// Collective over comm. `corners` holds count * 2^dim vertex ids (lexicographic corners) of
/// the elements [first, first + count) of `elements` in all (a block_range block). Throws
/// Error(io) on every rank, naming `source` and the element, for an element with a repeated
/// vertex and for a face shared by three or more elements (in 2-D: an edge); Error
/// (invalid_argument) for an order outside 1..64 or elements not in a block_range block.
Numbering number_nodes(std::span<const std::int64_t> corners, int dim, int order, std::int64_t first,
                       std::int64_t elements, const std::string& source, MPI_Comm comm);

}  // namespace gsr::io::import
