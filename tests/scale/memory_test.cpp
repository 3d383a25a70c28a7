// memory_test.cpp — a handle's memory under weak scaling: on a periodic box in which every
// rank holds a cube of the same elements (so every rank shares all six faces of it, whatever
// P), the fullest rank's Stats::handle_bytes at P = world size (32) stays within 1.2x of
// that at P = 8 for every method whose plan is local: pairwise, crystal router, neighbor (the
// allreduce method's dense vector spans every shared id of the box by design). The P = 8
// handles are built in the same run by ranks 0 to 7 on a communicator of their own, while the
// others wait asleep (MPICH's blocking waits spin, and would take the cores from them). Runs
// at P >= 32 only: at P = 16 the setups would cost more time than the comparison is worth.
#include <gsr/handle.hpp>

#include "model/box.hpp"

#include "method_param.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

using gsr::model::BlockGrid;
using gsr::model::BoxModel;

constexpr int elements_per_axis = 3;  // each rank's cube of elements, per axis
constexpr int order = 3;              // 4^3 nodes per element: 1728 entries per rank
constexpr double allowed_growth = 1.2;

/// Rank `rank`'s ids on the periodic box of `ranks` cubes, the cubes in a near-cubic grid.
std::vector<std::int64_t> weak_box_ids(int ranks, int rank) {
  const auto blocks = gsr::model::near_cube_factors(ranks, 3);
  BlockGrid grid;
  BoxModel box;
  box.dim = 3;
  box.order = order;
  box.periodic = {true, true, true};
  for (int d = 0; d < 3; ++d) {
    grid.blocks[d] = static_cast<int>(blocks[d]);
    box.elements[d] = blocks[d] * elements_per_axis;
  }
  const std::vector<std::int32_t> owner = gsr::model::element_owners(box, grid);
  std::vector<std::int64_t> ids, element(static_cast<std::size_t>(box.nodes_per_element()));
  for (std::int64_t e = 0; e < box.element_count(); ++e) {
    if (owner[static_cast<std::size_t>(e)] != rank) continue;
    box.element_ids(e, element);
    ids.insert(ids.end(), element.begin(), element.end());
  }
  return ids;
}

/// The fullest rank's handle_bytes for a method on a weak-scaled box, and the most
/// neighbours and shared groups a rank has there (for the report).
struct Footprint {
  double handle_bytes = 0, neighbors = 0, shared_groups = 0;
};

/// Collective over `comm`; the result is the same on all its ranks.
Footprint footprint(gsr::Method method, MPI_Comm comm) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  const std::vector<std::int64_t> ids = weak_box_ids(ranks, rank);
  gsr::Handle h(ids, comm, gsr_test::with_method(method));
  const gsr::Stats& st = h.stats();
  double mine[2] = {st.neighbors_spread.max, static_cast<double>(st.shared_groups)}, most[2];
  MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, comm);
  return Footprint{st.memory_spread.max, most[0], most[1]};
}

/// A barrier whose waiting ranks sleep between polls.
void sleeping_barrier(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  for (int done = 0; MPI_Test(&request, &done, MPI_STATUS_IGNORE), !done;)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

TEST(ScaleMemory, HandleBytesStayFlatUnderWeakScaling) {
  const int ranks = gsr_test::world_size(), rank = gsr_test::world_rank();
  if (ranks % 8 != 0 || ranks < 32) GTEST_SKIP() << "compares P = 8 with P >= 32 (a multiple of 8)";
  const gsr::Method methods[] = {gsr::Method::pairwise, gsr::Method::crystal_router, gsr::Method::neighbor};
  Footprint at_eight[3];
  MPI_Comm eight = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank < 8 ? 0 : MPI_UNDEFINED, rank, &eight);
  if (eight != MPI_COMM_NULL) {
    for (int m = 0; m < 3; ++m) at_eight[m] = footprint(methods[m], eight);
    MPI_Comm_free(&eight);
  }
  sleeping_barrier(MPI_COMM_WORLD);
  MPI_Bcast(at_eight, static_cast<int>(sizeof at_eight), MPI_BYTE, 0, MPI_COMM_WORLD);
  for (int m = 0; m < 3; ++m) {
    const gsr::Method method = methods[m];
    const Footprint& small = at_eight[m];
    const Footprint large = footprint(method, MPI_COMM_WORLD);
    const double ratio = large.handle_bytes / small.handle_bytes;
    if (rank == 0)
      std::printf(
          "scale memory: %-14s P=8: %6.0f bytes (%2.0f neighbours, %3.0f shared groups)  "
          "P=%d: %6.0f bytes (%2.0f neighbours, %3.0f shared groups)  ratio %.3f\n",
          std::string(gsr::to_string(method)).c_str(), small.handle_bytes, small.neighbors, small.shared_groups, ranks,
          large.handle_bytes, large.neighbors, large.shared_groups, ratio);
    EXPECT_LE(ratio, allowed_growth) << gsr::to_string(method) << ": the fullest rank's handle_bytes is "
                                     << small.handle_bytes << " at P = 8 and " << large.handle_bytes
                                     << " at P = " << ranks;
  }
}

}  // namespace
