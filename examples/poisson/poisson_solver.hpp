// poisson/poisson_solver.hpp — -Laplace(u) = f with u = 0 on the walls, on one rank's part
// of a spectral-element mesh: the whole pipeline from ids and coordinates to the solution
// and its error against the manufactured exact solution. Collective over comm.
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
};

struct SolveReport {
  std::vector<double> u;      // the solution, local layout (element after element)
  std::vector<double> exact;  // the exact solution at the same nodes
  CgResult cg;
  double max_error = 0;  // max over all nodes, all ranks, of |u - exact|
  std::int64_t global_nodes = 0;
  std::int64_t dirichlet_nodes = 0;
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
