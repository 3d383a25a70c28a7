// mpi/comm.hpp — a private duplicate of a caller's communicator. Everything gsr sends
// travels on its own duplicate, so its messages can never match the caller's, and the
// duplicate returns errors to gsr (MPI_ERRORS_RETURN) instead of aborting the job; the
// caller's communicator and MPI_COMM_WORLD keep their handlers untouched.
#pragma once

#include <mpi.h>

namespace gsr::detail {

class OwnedComm {
public:
  OwnedComm() = default;
  /// Collective over `user` (MPI_Comm_idup, polled: Error(timeout) after `timeout` seconds,
  /// GSR_TIMEOUT, if a rank never joins). Throws Error(mpi) if MPI refuses.
  OwnedComm(MPI_Comm user, double timeout);
  /// Takes ownership of a communicator gsr created (a graph communicator, say) and makes it
  /// return errors too.
  static OwnedComm adopt(MPI_Comm created);
  ~OwnedComm();
  OwnedComm(OwnedComm&& other) noexcept : comm_(other.comm_) { other.comm_ = MPI_COMM_NULL; }
  OwnedComm& operator=(OwnedComm&& other) noexcept;
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;

  MPI_Comm get() const noexcept { return comm_; }
  int rank() const;
  int size() const;
  /// Collective: how many of its ranks share this rank's node (by processor name, polled:
  /// Error(timeout) after `timeout` seconds; ranks_on_node_polled in polled.hpp).
  int ranks_on_node(double timeout) const;

private:
  void release() noexcept;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace gsr::detail
