// tools/bench/problem.cpp — the box and mesh-file inputs of gsr-bench.
#include "tools/bench/problem.hpp"

#include "tools/bench/timing.hpp"
#include "tools/box.hpp"

#include <gsr/mesh.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <span>

namespace gsr::tools::bench {
namespace {

int size_of(MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  return ranks;
}

}  // namespace

std::string Problem::describe() const {
  const std::string sizes = std::to_string(elements) + " elements, " + std::to_string(entries) + " entries";
  if (box_elements == 0)
    return "mesh " + input + " (" + std::to_string(dim) + "-D, order " + std::to_string(order) + "; fullest rank " +
           sizes + ")";
  return "box " + std::to_string(box_elements) + "^" + std::to_string(dim) + " elements of order " +
         std::to_string(order) + " per rank (" + sizes + "), ranks " + std::to_string(grid[0]) + "x" +
         std::to_string(grid[1]) + (dim == 3 ? "x" + std::to_string(grid[2]) : "");
}

std::array<int, 3> rank_grid(int ranks, int dim) {
  std::array<int, 3> best = {ranks, 1, 1};
  int best_spread = std::numeric_limits<int>::max();
  for (int x = 1; x <= ranks; ++x)
    for (int y = 1; x * y <= ranks; ++y) {
      if (ranks % (x * y) != 0) continue;
      std::array<int, 3> grid = {x, y, ranks / (x * y)};
      if (dim == 2 && grid[2] != 1) continue;
      const int used = dim == 2 ? 2 : 3;
      const auto [low, high] = std::minmax_element(grid.begin(), grid.begin() + used);
      if (*high - *low < best_spread) {
        best_spread = *high - *low;
        std::sort(grid.begin(), grid.begin() + used, std::greater<>());
        best = grid;
      }
    }
  return best;
}

Problem box_problem(int dim, int elements, int order, MPI_Comm comm) {
  Problem p;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  p.input = "box";
  p.ranks = size_of(comm);
  p.dim = dim;
  p.order = order;
  p.box_elements = elements;
  p.grid = rank_grid(p.ranks, dim);

  // The whole box, as gsr-mesh would write it; this rank takes its block of elements.
  BoxSpec spec;
  spec.dim = dim;
  spec.order = order;
  spec.coordinates = false;
  for (int d = 0; d < dim; ++d) spec.elements[d] = std::int64_t{p.grid[d]} * elements;
  const Box box(spec);
  const std::array<int, 3> at = {rank % p.grid[0], rank / p.grid[0] % p.grid[1], rank / (p.grid[0] * p.grid[1])};
  const int ez_count = dim == 3 ? elements : 1;
  const auto nodes = static_cast<std::size_t>(spec.nodes_per_element());
  p.elements = std::int64_t{elements} * elements * ez_count;
  p.entries = p.elements * static_cast<std::int64_t>(nodes);
  p.ids.resize(static_cast<std::size_t>(p.entries));
  std::size_t next = 0;
  for (int ez = 0; ez < ez_count; ++ez)
    for (int ey = 0; ey < elements; ++ey)
      for (int ex = 0; ex < elements; ++ex, next += nodes) {
        const std::int64_t gx = std::int64_t{at[0]} * elements + ex, gy = std::int64_t{at[1]} * elements + ey,
                           gz = std::int64_t{at[2]} * ez_count + ez;
        box.element_ids(gx + spec.elements[0] * (gy + spec.elements[1] * gz), std::span(p.ids).subspan(next, nodes));
      }
  return p;
}

Problem mesh_problem(const std::string& path, MPI_Comm comm) {
  ReadOptions options;
  options.coordinates = false;
  Mesh mesh = read_mesh(path, comm, options);
  Problem p;
  p.input = path;
  p.ranks = size_of(comm);
  p.dim = mesh.dim();
  p.order = mesh.order();
  p.elements = max_over_ranks(mesh.local_elements(), comm);
  p.entries = max_over_ranks(mesh.ids.size(), comm);
  p.ids = std::move(mesh.ids);
  return p;
}

std::vector<std::int64_t> flagged_ids(const std::vector<std::int64_t>& ids) {
  std::vector<std::int64_t> out(ids);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i % 11 == 10)
      out[i] = 0;
    else if (i % 7 == 3)
      out[i] = -out[i];
  }
  return out;
}

}  // namespace gsr::tools::bench
