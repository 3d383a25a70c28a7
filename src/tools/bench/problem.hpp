// tools/bench/problem.hpp — what gsr-bench runs on: this rank's ids, from a generated box
// (every rank a block of E^dim elements, the ranks in a near-cubic grid) or from a mesh
// file, and the sizes its records carry.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gsr::tools::bench {

struct Problem {
  std::vector<std::int64_t> ids;  // this rank's
  std::string input;              // "box" or the mesh file's path
  int ranks = 1;
  int dim = 3;
  int order = 1;
  int box_elements = 0;              // E, elements per rank per axis (0 for a mesh file)
  std::array<int, 3> grid{1, 1, 1};  // ranks per axis (box only)
  std::int64_t elements = 0;         // elements of the fullest rank
  std::int64_t entries = 0;          // entries (ids) of the fullest rank

  /// "box 8^3 of order 7, ranks 2x1x1" or "mesh FILE (3-D, order 2, 12 elements)".
  std::string describe() const;
};

/// P = px * py * pz with the factors as close as possible, largest first; pz = 1 in 2-D.
std::array<int, 3> rank_grid(int ranks, int dim);

/// Collective: rank r's block of the box whose ranks sit in rank_grid(P, dim), each with
/// E^dim elements of order N, numbered as gsr-mesh numbers a box of the whole size.
Problem box_problem(int dim, int elements, int order, MPI_Comm comm);

/// Collective: the mesh file's elements, in blocks (gsr::read_mesh). Throws gsr::Error.
Problem mesh_problem(const std::string& path, MPI_Comm comm);

/// The ids --check runs on: a copy with every 7th entry flagged (negated) and every 11th
/// absent (0), so flags and both transposes are compared too.
std::vector<std::int64_t> flagged_ids(const std::vector<std::int64_t>& ids);

}  // namespace gsr::tools::bench
