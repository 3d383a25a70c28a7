// mpi/neighborhood.cpp — see neighborhood.hpp.
#include "mpi/neighborhood.hpp"

#include "mpi/checked.hpp"

#include <climits>
#include <memory>
#include <type_traits>
#include <string>

namespace gsr::detail {

OwnedComm neighbor_graph(MPI_Comm comm, const std::vector<int>& neighbors, double timeout) {
  // MPI has no non-blocking form of MPI_Dist_graph_create_adjacent. A polled barrier goes
  // first: a rank that left the setup before this step (GSR_TIMEOUT) is caught there, and
  // once it completes every rank has reached this step.
  auto gate = std::make_shared<MPI_Request>(MPI_REQUEST_NULL);
  GSR_MPI_CHECK(MPI_Ibarrier(comm, gate.get()));
  wait_polled(*gate, gate, timeout);
  MPI_Comm graph = MPI_COMM_NULL;
  const int degree = static_cast<int>(neighbors.size());
  // No reordering: the graph communicator keeps the ranks of `comm`, which the plan names.
  GSR_MPI_CHECK(MPI_Dist_graph_create_adjacent(comm, degree, neighbors.data(), MPI_UNWEIGHTED, degree, neighbors.data(),
                                               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph));
  return OwnedComm::adopt(graph);
}

void NeighborCounts::check_countable([[maybe_unused]] const std::vector<std::size_t>& bytes) {
#if MPI_VERSION < 4
  std::size_t offset = 0;
  for (const std::size_t b : bytes) {
    if (b > INT_MAX || offset > INT_MAX)
      throw Error(ErrorCode::invalid_argument,
                  "gsr: the neighbor method would send or receive a message of " + std::to_string(b) +
                      " bytes at offset " + std::to_string(offset) +
                      ", beyond what this MPI (before version 4) can count; use another method");
    offset += b;
  }
#endif
}

void NeighborCounts::lay_out(const std::vector<std::size_t>& send_bytes, const std::vector<std::size_t>& recv_bytes) {
  check_countable(send_bytes);
  check_countable(recv_bytes);
  auto fill = [](const std::vector<std::size_t>& bytes, auto& counts, auto& at) {
    using Count = typename std::decay_t<decltype(counts)>::value_type;
    using At = typename std::decay_t<decltype(at)>::value_type;
    counts.resize(bytes.size());
    at.resize(bytes.size());
    std::size_t offset = 0;
    for (std::size_t j = 0; j < bytes.size(); ++j) {
      counts[j] = static_cast<Count>(bytes[j]);
      at[j] = static_cast<At>(offset);
      offset += bytes[j];
    }
  };
  fill(send_bytes, send, send_at);
  fill(recv_bytes, recv, recv_at);
}

void post_neighbor_alltoall_fixed(const void* send, void* recv, std::size_t bytes, MPI_Comm graph,
                                  std::vector<MPI_Request>& requests) {
  MPI_Request request = MPI_REQUEST_NULL;
  GSR_MPI_CHECK(MPI_Ineighbor_alltoall(send, static_cast<int>(bytes), MPI_BYTE, recv, static_cast<int>(bytes), MPI_BYTE,
                                       graph, &request));
  requests.push_back(request);
}

void post_neighbor_alltoall(const void* send, void* recv, const NeighborCounts& counts, MPI_Comm graph,
                            std::vector<MPI_Request>& requests) {
  MPI_Request request = MPI_REQUEST_NULL;
#if MPI_VERSION >= 4
  GSR_MPI_CHECK(MPI_Ineighbor_alltoallv_c(send, counts.send.data(), counts.send_at.data(), MPI_BYTE, recv,
                                          counts.recv.data(), counts.recv_at.data(), MPI_BYTE, graph, &request));
#else
  GSR_MPI_CHECK(MPI_Ineighbor_alltoallv(send, counts.send.data(), counts.send_at.data(), MPI_BYTE, recv,
                                        counts.recv.data(), counts.recv_at.data(), MPI_BYTE, graph, &request));
#endif
  requests.push_back(request);
}

}  // namespace gsr::detail
