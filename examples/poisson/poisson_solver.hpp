// poisson/poisson_solver.hpp — -Laplace(u) = f on one rank's part of a spectral-element
// mesh: the whole pipeline from ids and coordinates to the solution and its error against
// the manufactured exact solution. Collective over comm. The boundary conditions:
//   - a mesh without /mesh/boundary (gsr-mesh box): u = 0 on the walls of its bounding box;
//   - a mesh with it (gsr-mesh import): u = exact on the nodes of the faces with a boundary
//     tag in field 1 (all tags, or those of SolveOptions::dirichlet_tags), inhomogeneous, by
//     lifting; the other tagged faces get the natural condition du/dn = d(exact)/dn.
#pragma once

#include "assembly.hpp"
#include "conjugate_gradients.hpp"

#include <gsr/handle.hpp>
#include <gsr/mesh.hpp>

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace poisson {

struct SolveOptions {
  CgOptions cg;
  gsr::SetupOptions setup;
  DotWeights weights = DotWeights::multiplicity;
  /// Meshes with boundary faces: the field-1 tags whose faces are Dirichlet; empty = all.
  std::vector<std::int64_t> dirichlet_tags;
};

struct SolveReport {
  std::vector<double> u;      // the solution, local layout (element after element)
  std::vector<double> exact;  // the exact solution at the same nodes
  CgResult cg;
  double max_error = 0;  // max over all nodes, all ranks, of |u - exact|
  std::int64_t global_nodes = 0;
  std::int64_t dirichlet_nodes = 0;
  // Meshes with boundary faces (boundary_faces = true): faces of field 1 by condition.
  bool boundary_faces = false;
  std::int64_t dirichlet_faces = 0;
  std::int64_t neumann_faces = 0;
  std::string formula;  // the exact solution, as text
  gsr::Stats gs_stats;
  // Wall times, max over ranks.
  double setup_seconds = 0;  // building the gs handle
  double solve_seconds = 0;  // geometry, right-hand side, preconditioner and CG
  double gs_seconds = 0;     // part of solve_seconds inside gs calls
  long gs_calls = 0;
};

SolveReport solve_poisson(const gsr::Mesh& mesh, MPI_Comm comm, const SolveOptions& options);

}  // namespace poisson
