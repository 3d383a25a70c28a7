// gsr-bench — per-call time of every exchange method on a spectral-element-like id pattern:
// a box of hexahedral elements of order N, each rank owning a block of e x e x e elements,
// the ranks arranged in a near-cubic grid. Element-boundary nodes are shared between
// elements (within a rank) and between ranks (faces, edges and corners of rank blocks).
// Prints, per method and call kind, the slowest rank's median time per call and its ratio to
// the fastest method, then what auto chose on the same ids.
#include <gsr/handle.hpp>

#include "world.hpp"

#include <CLI/CLI.hpp>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace {

/// P = px * py * pz with the factors as close as possible (largest first).
std::array<int, 3> rank_grid(int ranks) {
  std::array<int, 3> best = {ranks, 1, 1};
  int best_spread = std::numeric_limits<int>::max();
  for (int x = 1; x <= ranks; ++x)
    for (int y = 1; x * y <= ranks; ++y) {
      if (ranks % (x * y)) continue;
      const int z = ranks / (x * y);
      const int spread = std::max({x, y, z}) - std::min({x, y, z});
      if (spread < best_spread) {
        best_spread = spread;
        best = {x, y, z};
      }
    }
  return best;
}

/// The ids of this rank's elements: (N+1)^3 nodes each, numbered in the global node grid.
std::vector<std::int64_t> box_ids(int rank, int ranks, int e, int order) {
  const auto grid = rank_grid(ranks);
  const int cx = rank % grid[0], cy = (rank / grid[0]) % grid[1], cz = rank / (grid[0] * grid[1]);
  const std::int64_t nx = std::int64_t(grid[0]) * e * order + 1, ny = std::int64_t(grid[1]) * e * order + 1;
  std::vector<std::int64_t> ids;
  ids.reserve(std::size_t(e) * e * e * (order + 1) * (order + 1) * (order + 1));
  for (int ez = 0; ez < e; ++ez)
    for (int ey = 0; ey < e; ++ey)
      for (int ex = 0; ex < e; ++ex)
        for (int k = 0; k <= order; ++k)
          for (int j = 0; j <= order; ++j)
            for (int i = 0; i <= order; ++i) {
              const std::int64_t gx = (std::int64_t(cx) * e + ex) * order + i;
              const std::int64_t gy = (std::int64_t(cy) * e + ey) * order + j;
              const std::int64_t gz = (std::int64_t(cz) * e + ez) * order + k;
              ids.push_back(1 + gx + nx * (gy + ny * gz));
            }
  return ids;
}

struct Kind {
  const char* name;
  std::size_t k;
  bool nonblocking;
};

/// Slowest rank's median seconds per call (after warm-up calls). The median, not the mean:
/// on a shared or oversubscribed machine a few descheduled calls would otherwise dominate.
double time_calls(gsr::Handle& h, const Kind& kind, int calls) {
  std::vector<double> u(h.size() * kind.k, 1.0);
  auto once = [&] {
    if (kind.nonblocking) {
      gsr::Request r = h.start_vec(std::span<double>(u), kind.k, gsr::Op::add);
      r.wait();
    } else {
      h.apply_vec(std::span<double>(u), kind.k, gsr::Op::add);
    }
  };
  for (int i = 0; i < 3; ++i) once();
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<double> each(static_cast<std::size_t>(calls));
  for (double& t : each) {
    std::fill(u.begin(), u.end(), 1.0);
    const double begin = MPI_Wtime();
    once();
    t = MPI_Wtime() - begin;
  }
  std::nth_element(each.begin(), each.begin() + calls / 2, each.end());
  const double mine = each[static_cast<std::size_t>(calls / 2)];
  double slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rank = gsr_test::world_rank(), ranks = gsr_test::world_size();

  CLI::App app{"gsr-bench: time every exchange method on a box of spectral elements"};
  int elements = 6, order = 5, calls = 100;
  bool quick = false;
  app.add_option("--elements", elements, "elements per rank along each axis")->check(CLI::Range(1, 64));
  app.add_option("--order", order, "polynomial order N of the elements")->check(CLI::Range(1, 32));
  app.add_option("--calls", calls, "timed calls per method and kind")->check(CLI::Range(1, 1000000));
  app.add_flag("--quick", quick, "a small smoke run (2 elements, order 2, 5 calls)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : (e.get_exit_code() != 0);
    MPI_Finalize();
    return code;
  }
  if (quick) {
    elements = 2;
    order = 2;
    calls = 5;
  }

  const std::vector<std::int64_t> ids = box_ids(rank, ranks, elements, order);
  const Kind kinds[] = {{"k=1 blocking", 1, false}, {"k=1 start/wait", 1, true}, {"k=3 blocking", 3, false}};
  constexpr std::size_t method_count = std::size(gsr::concrete_methods);
  double seconds[std::size(kinds)][method_count];
  std::string shape;

  for (std::size_t m = 0; m < method_count; ++m) {
    gsr::SetupOptions options;
    options.method = gsr::concrete_methods[m];
    gsr::Handle h(ids, MPI_COMM_WORLD, options);
    if (m == 0) {
      const auto grid = rank_grid(ranks);
      shape = std::to_string(ranks) + " rank(s) as " + std::to_string(grid[0]) + "x" + std::to_string(grid[1]) +
              "x" + std::to_string(grid[2]) + ", " + std::to_string(elements) + "^3 elements of order " +
              std::to_string(order) + " per rank, " + std::to_string(ids.size()) + " entries per rank, " +
              std::to_string(h.stats().global_shared_ids) + " ids shared between ranks";
    }
    for (std::size_t c = 0; c < std::size(kinds); ++c) seconds[c][m] = time_calls(h, kinds[c], calls);
  }

  gsr::Handle chosen(ids, MPI_COMM_WORLD);  // auto, unless GSR_METHOD says otherwise

  if (rank == 0) {
    std::printf("gsr-bench: %s; %d timed calls each, slowest rank's median per call\n", shape.c_str(), calls);
    std::printf("%-16s", "kind");
    for (gsr::Method m : gsr::concrete_methods) std::printf(" %22s", std::string(gsr::to_string(m)).c_str());
    std::printf("\n");
    for (std::size_t c = 0; c < std::size(kinds); ++c) {
      const double best = *std::min_element(seconds[c], seconds[c] + method_count);
      std::printf("%-16s", kinds[c].name);
      for (std::size_t m = 0; m < method_count; ++m) {
        char cell[64];
        std::snprintf(cell, sizeof cell, "%.2f us (%.2fx)", seconds[c][m] * 1e6, seconds[c][m] / best);
        std::printf(" %22s", cell);
      }
      std::printf("\n");
    }
    std::printf("auto chose %s: %s\n", std::string(gsr::to_string(chosen.stats().method)).c_str(),
                chosen.stats().method_reason.c_str());
    std::fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
