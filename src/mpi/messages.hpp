// mpi/messages.hpp — receiving messages whose size the receiver cannot know in advance,
// and completing requests. A receive posted for fewer bytes than its message carries
// fails with MPI_ERR_TRUNCATE, and MPICH raises that error on MPI_COMM_WORLD's handler
// (which aborts), not on the request's communicator. So gsr never posts such a receive:
// a message of unknown size is probed first and received at the size it really has.
#pragma once

#include "mpi/checked.hpp"

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <type_traits>
#include <vector>

namespace gsr::detail {

/// A matched, not yet received message (MPI_Mprobe): nobody else can receive it.
struct ProbedMessage {
  MPI_Message handle = MPI_MESSAGE_NULL;
  std::size_t bytes = 0;
};

/// Blocks until the next message from `source` with `tag` arrives; matches it.
ProbedMessage probe(MPI_Comm comm, int source, int tag);

/// The next message from `source` with `tag` if one has arrived (MPI_Improbe), matched.
std::optional<ProbedMessage> try_probe(MPI_Comm comm, int source, int tag);

/// Receives a probed message into `into` (at least message.bytes long).
void receive(ProbedMessage& message, void* into);

/// Receives the next message from `source` with `tag` whole, as values of T.
template <class T>
std::vector<T> receive_whole(MPI_Comm comm, int source, int tag) {
  static_assert(std::is_trivially_copyable_v<T>);
  ProbedMessage message = probe(comm, source, tag);
  std::vector<T> values((message.bytes + sizeof(T) - 1) / sizeof(T));
  receive(message, values.data());
  return values;
}

/// Completes every request (sends, whose completion cannot truncate); throws Error(mpi)
/// naming `what` if MPI reports a failure.
void complete_all(std::vector<MPI_Request>& requests, const char* what);

/// Whether every request has completed (MPI_Testall), without blocking.
bool test_all(std::vector<MPI_Request>& requests, const char* what);

}  // namespace gsr::detail
