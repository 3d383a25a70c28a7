// mpi/sparse_exchange.cpp — see sparse_exchange.hpp.
#include "mpi/sparse_exchange.hpp"

#include <algorithm>

namespace gsr::detail {

std::vector<ByteMessage> sparse_exchange_bytes(MPI_Comm comm, int tag,
                                               const std::vector<ByteMessage>& outgoing) {
  std::vector<MPI_Request> sends(outgoing.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < outgoing.size(); ++i) {
    const auto& m = outgoing[i];
    GSR_MPI_CHECK(MPI_Issend(m.bytes.data(), mpi_count(m.bytes.size(), "setup message"), MPI_BYTE,
                             m.rank, tag, comm, &sends[i]));
  }

  std::vector<ByteMessage> received;
  MPI_Request barrier = MPI_REQUEST_NULL;
  bool barrier_started = false;
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    GSR_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &arrived, &status));
    if (arrived) {
      int count = 0;
      GSR_MPI_CHECK(MPI_Get_count(&status, MPI_BYTE, &count));
      ByteMessage m{status.MPI_SOURCE, std::vector<std::byte>(static_cast<std::size_t>(count))};
      GSR_MPI_CHECK(MPI_Recv(m.bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, tag, comm,
                             MPI_STATUS_IGNORE));
      received.push_back(std::move(m));
      continue;
    }
    if (!barrier_started) {
      int all_sent = 0;
      GSR_MPI_CHECK(MPI_Testall(static_cast<int>(sends.size()), sends.data(), &all_sent,
                                MPI_STATUSES_IGNORE));
      if (all_sent) {
        GSR_MPI_CHECK(MPI_Ibarrier(comm, &barrier));
        barrier_started = true;
      }
    } else {
      int done = 0;
      GSR_MPI_CHECK(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE));
      if (done) break;
    }
  }
  // Arrival order is a race; the callers' results must not be.
  std::stable_sort(received.begin(), received.end(),
                   [](const ByteMessage& a, const ByteMessage& b) { return a.rank < b.rank; });
  return received;
}

}  // namespace gsr::detail
