// transfer/sparse_exchange.cpp — see sparse_exchange.hpp.
#include "transfer/sparse_exchange.hpp"

#include "mpi/keeper.hpp"
#include "mpi/watch.hpp"

#include <algorithm>

namespace gsr::detail {

std::vector<ByteMessage> sparse_exchange_views(MPI_Comm comm, int tag, const std::vector<OutgoingView>& outgoing,
                                               std::size_t chunk_bytes, Watch* watch, double timeout,
                                               std::shared_ptr<const void> sent) {
  PendingSends pending;  // abandoned to the keeper if the watch or the clock stops the exchange
  if (sent) pending.hold(std::move(sent));
  std::vector<MPI_Request>& sends = pending.requests;
  for (const OutgoingView& m : outgoing)
    post_send(m.data, m.bytes, m.rank, tag, comm, sends, chunk_bytes, SendMode::synchronous);
  double since = watch ? watch->begin_wait() : MPI_Wtime();

  // A chunked message's rest is waited for with the watch's checks, since the last arrival.
  PollCheck check_rest;
  if (watch) check_rest = [watch, &since] { watch->check(since); };

  std::vector<ByteMessage> received;
  MPI_Request barrier = MPI_REQUEST_NULL;
  bool barrier_started = false;
  for (;;) {
    if (std::optional<ProbedMessage> arrived = try_probe(comm, MPI_ANY_SOURCE, tag, chunk_bytes, check_rest)) {
      ByteMessage m{arrived->source, std::vector<std::byte>(arrived->bytes)};
      receive(*arrived, m.bytes.data());
      received.push_back(std::move(m));
      since = MPI_Wtime();
      continue;
    }
    if (!barrier_started) {
      if (test_all(sends, "sparse exchange send")) {
        GSR_MPI_CHECK(MPI_Ibarrier(comm, &barrier));
        barrier_started = true;
      }
    } else {
      int done = 0;
      GSR_MPI_CHECK(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE));
      if (done) break;
    }
    if (watch) {
      watch->check(since);
    } else if (timeout > 0 && MPI_Wtime() - since > timeout) {
      if (barrier_started) keep_until_exit(barrier);  // never completes now
      throw timeout_error(MPI_Wtime() - since, timeout, collective_step);
    }
  }
  // Arrival order is a race; the callers' results must not be.
  std::stable_sort(received.begin(), received.end(),
                   [](const ByteMessage& a, const ByteMessage& b) { return a.rank < b.rank; });
  return received;
}

std::vector<ByteMessage> sparse_exchange_bytes(MPI_Comm comm, int tag, const std::vector<ByteMessage>& outgoing,
                                               std::size_t chunk_bytes) {
  std::vector<OutgoingView> views;
  views.reserve(outgoing.size());
  for (const ByteMessage& m : outgoing) views.push_back(OutgoingView{m.rank, m.bytes.data(), m.bytes.size()});
  return sparse_exchange_views(comm, tag, views, chunk_bytes);
}

}  // namespace gsr::detail
