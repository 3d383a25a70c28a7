// poisson/poisson_solver.cpp — the spectral-element Poisson solve, step by step.
#include "poisson_solver.hpp"

#include "element_operator.hpp"
#include "gll.hpp"
#include "manufactured.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

namespace poisson {

namespace {

double max_over_ranks(double value, MPI_Comm comm) {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm);
  return result;
}

// Runs `step` on every rank; if it throws on any rank, every rank throws (no rank is left
// waiting in the next collective call).
template <class Step>
auto on_all_ranks(MPI_Comm comm, Step step) {
  std::string message;
  decltype(step()) result{};
  try {
    result = step();
  } catch (const std::exception& e) {
    message = e.what();
  }
  int failed = message.empty() ? 0 : 1, any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, comm);
  if (any_failed) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    throw std::runtime_error(failed ? "rank " + std::to_string(rank) + ": " + message
                                    : "another rank failed (see its message)");
  }
  return result;
}

// Dirichlet mask: 0 on wall nodes. Every copy of a node has the same coordinates, but a
// gs min makes the copies agree even if rounding put one copy a hair off the wall.
std::vector<double> dirichlet_mask(const Manufactured& problem, const std::vector<double>& coordinates, int dim,
                                   Assembly& gs) {
  const std::size_t n = coordinates.size() / dim;
  std::vector<double> mask(n);
  for (std::size_t i = 0; i < n; ++i) mask[i] = problem.on_dirichlet_boundary(&coordinates[i * dim]) ? 0.0 : 1.0;
  gs.min(mask);
  return mask;
}

// Right-hand side b = mask . QQ^T (B_L f): the element load vectors, summed over copies.
std::vector<double> load_vector(const Manufactured& problem, const std::vector<double>& coordinates, int dim,
                                const ElementOperator& element, const std::vector<double>& mask, Assembly& gs) {
  const std::size_t n = mask.size();
  std::vector<double> b(n);
  const std::vector<double>& mass = element.mass();
  for (std::size_t i = 0; i < n; ++i) b[i] = mass[i] * problem.source(&coordinates[i * dim]);
  gs.sum(b);
  for (std::size_t i = 0; i < n; ++i) b[i] *= mask[i];
  return b;
}

// Jacobi preconditioner: the diagonal of the assembled matrix is QQ^T of the element
// diagonals (a node's diagonal entry collects one term from every element holding it).
std::vector<double> inverse_diagonal(const ElementOperator& element, const std::vector<double>& mask, Assembly& gs) {
  std::vector<double> diagonal = element.stiffness_diagonal();
  gs.sum(diagonal);
  for (std::size_t i = 0; i < diagonal.size(); ++i) diagonal[i] = mask[i] / diagonal[i];
  return diagonal;
}

// A u = mask . QQ^T (A_L u): local stiffness, direct stiffness summation, then the
// Dirichlet rows dropped. Vectors stay continuous (all copies equal) throughout.
CgOperators cg_operators(const ElementOperator& element, const std::vector<double>& mask,
                         const std::vector<double>& inverse_diag, Assembly& gs) {
  CgOperators ops;
  ops.apply = [&](std::span<const double> in, std::span<double> out) {
    element.apply_stiffness(in, out);
    gs.sum(out);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] *= mask[i];
  };
  ops.precondition = [&](std::span<const double> in, std::span<double> out) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = inverse_diag[i] * in[i];
  };
  ops.dot = [&gs](std::span<const double> a, std::span<const double> c) { return gs.dot(a, c); };
  ops.dot2 = [&gs](auto a, auto c, auto d, auto e) { return gs.dot2(a, c, d, e); };
  return ops;
}

// The error against the exact solution, the node counts, and the timings, over all ranks.
void fill_report(SolveReport& report, const Manufactured& problem, const std::vector<double>& coordinates, int dim,
                 const std::vector<double>& mask, Assembly& gs, double solve_seconds, MPI_Comm comm) {
  const std::size_t n = mask.size();
  report.exact.resize(n);
  double local_error = 0, local_counts[2] = {0, 0};
  for (std::size_t i = 0; i < n; ++i) {
    report.exact[i] = problem.exact(&coordinates[i * dim]);
    local_error = std::max(local_error, std::abs(report.u[i] - report.exact[i]));
    local_counts[0] += gs.weights()[i];
    local_counts[1] += gs.weights()[i] * (1 - mask[i]);
  }
  report.max_error = max_over_ranks(local_error, comm);
  double counts[2] = {0, 0};
  MPI_Allreduce(local_counts, counts, 2, MPI_DOUBLE, MPI_SUM, comm);
  report.global_nodes = std::llround(counts[0]);
  report.dirichlet_nodes = std::llround(counts[1]);
  report.formula = problem.formula();
  report.gs_stats = gs.handle().stats();
  report.setup_seconds = max_over_ranks(gs.setup_seconds(), comm);
  report.solve_seconds = max_over_ranks(solve_seconds, comm);
  report.gs_seconds = max_over_ranks(gs.gs_seconds(), comm);
  report.gs_calls = gs.gs_calls();
}

}  // namespace

SolveReport solve_poisson(const gsr::Mesh& mesh, MPI_Comm comm, const SolveOptions& options) {
  if (!mesh.has_coordinates())
    throw std::runtime_error("the mesh file has no /mesh/coordinates: the solver needs the geometry");
  const int dim = mesh.dim();
  Assembly gs(mesh.ids, comm, options.setup, options.weights);
  const double solve_start = MPI_Wtime();

  const GllRule rule = make_gll_rule(mesh.order());
  auto element = on_all_ranks(
      comm, [&] { return std::make_shared<ElementOperator>(dim, rule, mesh.local_elements(), mesh.coordinates); });
  const Manufactured problem(bounding_box(dim, mesh.coordinates, mesh.info.periods, comm));
  const std::vector<double> mask = dirichlet_mask(problem, mesh.coordinates, dim, gs);
  const std::vector<double> b = load_vector(problem, mesh.coordinates, dim, *element, mask, gs);
  const std::vector<double> inverse_diag = inverse_diagonal(*element, mask, gs);

  SolveReport report;
  report.u.assign(mesh.ids.size(), 0.0);
  report.cg = conjugate_gradients(cg_operators(*element, mask, inverse_diag, gs), b, report.u, options.cg);
  fill_report(report, problem, mesh.coordinates, dim, mask, gs, MPI_Wtime() - solve_start, comm);
  return report;
}

}  // namespace poisson
