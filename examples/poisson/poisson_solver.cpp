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

// ---- meshes with boundary faces (Manufactured::Kind::general) ----

// A face of field 1 with a boundary tag, and the condition it gets.
struct TaggedFace {
  std::size_t element;  // local
  int face;             // 2 axis + side
  bool dirichlet;       // else Neumann (natural)
};

// The tagged faces of field 1; Dirichlet where the tag is chosen (every tag when none is).
// Collective: a chosen tag that no face carries, or no Dirichlet face at all (the problem
// would have no unique solution), is an error on every rank.
std::vector<TaggedFace> tagged_faces(const gsr::Mesh& mesh, const std::vector<std::int64_t>& chosen, MPI_Comm comm) {
  const int faces = 2 * mesh.dim();
  const std::size_t fields = static_cast<std::size_t>(mesh.info.boundary_fields);
  std::vector<TaggedFace> result;
  std::vector<long long> counts(chosen.size() + 1, 0);  // faces per chosen tag, then Dirichlet faces
  for (std::size_t k = 0; k < mesh.local_elements(); ++k)
    for (int s = 0; s < faces; ++s) {
      const std::int64_t tag = mesh.boundary[k * fields * faces + s];  // field 1: f = 0
      if (tag < 0) continue;
      const auto it = std::find(chosen.begin(), chosen.end(), tag);
      if (it != chosen.end()) ++counts[it - chosen.begin()];
      const bool dirichlet = chosen.empty() || it != chosen.end();
      counts.back() += dirichlet ? 1 : 0;
      result.push_back({k, s, dirichlet});
    }
  MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()), MPI_LONG_LONG, MPI_SUM, comm);
  for (std::size_t t = 0; t < chosen.size(); ++t)
    if (counts[t] == 0)
      throw std::runtime_error("no boundary face of field 1 has the Dirichlet tag " + std::to_string(chosen[t]) +
                               " (see gsr-check's boundary faces by tag)");
  if (counts.back() == 0)
    throw std::runtime_error(
        "the mesh's /mesh/boundary has no face with a tag in field 1, so no Dirichlet "
        "boundary: -Laplace(u) = f has no unique solution");
  return result;
}

// The element's nodes on face `face`: those whose index along axis face / 2 is 0 (side -)
// or N (side +).
std::vector<int> face_nodes(int dim, int order, int face) {
  const int n1 = order + 1, axis = face / 2, at = face % 2 == 1 ? order : 0;
  int nodes = 1;
  for (int a = 0; a < dim; ++a) nodes *= n1;
  std::vector<int> result;
  for (int p = 0; p < nodes; ++p) {
    int rest = p;
    for (int a = 0; a < axis; ++a) rest /= n1;
    if (rest % n1 == at) result.push_back(p);
  }
  return result;
}

// Dirichlet mask: 0 on the nodes of Dirichlet faces; the gs min extends that to every copy
// (an edge node of a Dirichlet face, held by a neighbour whose faces are all interior).
std::vector<double> face_mask(const std::vector<TaggedFace>& faces, const gsr::Mesh& mesh, Assembly& gs) {
  std::vector<double> mask(mesh.ids.size(), 1.0);
  const int dim = mesh.dim(), order = mesh.order();
  const std::size_t nodes = static_cast<std::size_t>(mesh.nodes_per_element());
  for (const TaggedFace& f : faces)
    if (f.dirichlet)
      for (const int p : face_nodes(dim, order, f.face)) mask[f.element * nodes + p] = 0;
  gs.min(mask);
  return mask;
}

// The lift: the exact solution on the Dirichlet nodes, 0 elsewhere (continuous: every copy
// of a node has its position, so its value).
std::vector<double> dirichlet_lift(const Manufactured& problem, const std::vector<double>& coordinates, int dim,
                                   const std::vector<double>& mask) {
  std::vector<double> lift(mask.size(), 0.0);
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i] == 0) lift[i] = problem.exact(&coordinates[i * dim]);
  return lift;
}

// Right-hand side of the lifted problem A u0 = b, u = u0 + lift, u0 = 0 on the Dirichlet
// nodes: b = mask . QQ^T (B_L f + g_N - A_L lift), with g_N the Neumann faces' fluxes
// int (grad exact . n) phi dS, by GLL quadrature on each face.
std::vector<double> lifted_load_vector(const Manufactured& problem, const std::vector<double>& coordinates, int dim,
                                       const ElementOperator& element, const std::vector<TaggedFace>& faces,
                                       const std::vector<double>& mask, const std::vector<double>& lift, Assembly& gs) {
  const std::size_t n = mask.size();
  std::vector<double> b(n), lifted(n);
  const std::vector<double>& mass = element.mass();
  for (std::size_t i = 0; i < n; ++i) b[i] = mass[i] * problem.source(&coordinates[i * dim]);
  const std::size_t nodes = static_cast<std::size_t>(element.nodes_per_element());
  for (const TaggedFace& f : faces) {
    if (f.dirichlet) continue;
    const ElementOperator::FaceQuadrature q = element.face_quadrature(f.element, f.face, coordinates);
    for (std::size_t j = 0; j < q.nodes.size(); ++j) {
      const std::size_t i = f.element * nodes + q.nodes[j];
      double gradient[3] = {0, 0, 0};
      problem.gradient(&coordinates[i * dim], gradient);
      for (int c = 0; c < dim; ++c) b[i] += q.area_normals[j * dim + c] * gradient[c];
    }
  }
  element.apply_stiffness(lift, lifted);
  for (std::size_t i = 0; i < n; ++i) b[i] -= lifted[i];
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
  const bool boundary_faces = mesh.info.boundary_fields > 0;
  if (!boundary_faces && !options.dirichlet_tags.empty())
    throw std::runtime_error(
        "Dirichlet tags were chosen, but the mesh file has no /mesh/boundary (its boundary is "
        "the walls of its bounding box)");
  const int dim = mesh.dim();
  Assembly gs(mesh.ids, comm, options.setup, options.weights);
  const double solve_start = MPI_Wtime();

  const GllRule rule = make_gll_rule(mesh.order());
  auto element = on_all_ranks(
      comm, [&] { return std::make_shared<ElementOperator>(dim, rule, mesh.local_elements(), mesh.coordinates); });
  const Manufactured problem(bounding_box(dim, mesh.coordinates, mesh.info.periods, comm),
                             boundary_faces ? Manufactured::Kind::general : Manufactured::Kind::walls);
  SolveReport report;
  std::vector<double> mask, b, lift;
  if (boundary_faces) {
    const std::vector<TaggedFace> faces = tagged_faces(mesh, options.dirichlet_tags, comm);
    mask = face_mask(faces, mesh, gs);
    lift = dirichlet_lift(problem, mesh.coordinates, dim, mask);
    b = lifted_load_vector(problem, mesh.coordinates, dim, *element, faces, mask, lift, gs);
    long long counts[2] = {0, 0};
    for (const TaggedFace& f : faces) ++counts[f.dirichlet ? 0 : 1];
    MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, comm);
    report.boundary_faces = true;
    report.dirichlet_faces = counts[0];
    report.neumann_faces = counts[1];
  } else {
    mask = dirichlet_mask(problem, mesh.coordinates, dim, gs);
    b = load_vector(problem, mesh.coordinates, dim, *element, mask, gs);
  }
  const std::vector<double> inverse_diag = inverse_diagonal(*element, mask, gs);

  report.u.assign(mesh.ids.size(), 0.0);
  report.cg = conjugate_gradients(cg_operators(*element, mask, inverse_diag, gs), b, report.u, options.cg);
  for (std::size_t i = 0; i < lift.size(); ++i) report.u[i] += lift[i];
  fill_report(report, problem, mesh.coordinates, dim, mask, gs, MPI_Wtime() - solve_start, comm);
  return report;
}

}  // namespace poisson
