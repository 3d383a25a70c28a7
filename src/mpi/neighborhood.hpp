// mpi/neighborhood.hpp — MPI's neighbourhood collectives: a distributed graph communicator
// over a rank's neighbours (the same ranks both ways) and the byte-wise all-to-all along its
// edges, with MPI-4 large counts where MPI has them.
#pragma once

#include "mpi/comm.hpp"

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace gsr::detail {

/// Collective over `comm`: a communicator whose graph has an edge each way between this
/// rank and each of `neighbors` (ascending, never this rank), in that order, returning
/// errors like OwnedComm. Every rank must list a neighbour that lists it back. A rank that
/// does not come costs the others `timeout` seconds (GSR_TIMEOUT; 0: no limit), not a hang.
OwnedComm neighbor_graph(MPI_Comm comm, const std::vector<int>& neighbors, double timeout);

/// Counts and displacements, in bytes, of one neighbourhood all-to-all, one per neighbour
/// in graph order; kept by the caller so that a call allocates nothing.
struct NeighborCounts {
#if MPI_VERSION >= 4
  std::vector<MPI_Count> send, recv;
  std::vector<MPI_Aint> send_at, recv_at;
#else
  std::vector<int> send, recv, send_at, recv_at;
#endif
  /// Lays out messages of the given lengths back to back. Throws Error(invalid_argument)
  /// if MPI (before version 4) cannot count them with an int.
  void lay_out(const std::vector<std::size_t>& send_bytes, const std::vector<std::size_t>& recv_bytes);
  /// Throws as lay_out would for messages of these lengths laid out back to back; nothing
  /// to check with MPI 4's large counts.
  static void check_countable(const std::vector<std::size_t>& bytes);
};

/// Collective over the graph communicator: posts MPI_Ineighbor_alltoall of `bytes` bytes to
/// and from every neighbour (graph order, back to back) and appends its request to
/// `requests` (which must not be freed, only completed).
void post_neighbor_alltoall_fixed(const void* send, void* recv, std::size_t bytes, MPI_Comm graph,
                                  std::vector<MPI_Request>& requests);

/// Collective over the graph communicator: posts MPI_Ineighbor_alltoallv of bytes and
/// appends its request to `requests` (which must not be freed, only completed).
void post_neighbor_alltoall(const void* send, void* recv, const NeighborCounts& counts, MPI_Comm graph,
                            std::vector<MPI_Request>& requests);

}  // namespace gsr::detail
