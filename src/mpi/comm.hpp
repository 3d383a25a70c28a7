// mpi/comm.hpp — a private duplicate of a caller's communicator. Everything gsr sends
// travels on its own duplicate, so its messages can never match the caller's, and the
// duplicate returns errors to gsr (MPI_ERRORS_RETURN) instead of aborting the job; the
// caller's communicator and MPI_COMM_WORLD keep their handlers untouched.
#pragma once

#include <mpi.h>

#include <exception>

namespace gsr::detail {

class OwnedComm {
public:
  OwnedComm() = default;
  /// Collective over `user`: the duplicate (MPI_Comm_idup, polled: Error(timeout) after
  /// `timeout` seconds, GSR_TIMEOUT, if a rank never joins; Error(mpi) if MPI refuses it),
  /// then an agreement over `user` (agree_on_errors) that every rank took its duplicate
  /// over. A rank that could not (MPI refused the error handler, memory ran out) throws its
  /// error and the others `remote` naming it, at once: none goes on to wait on a duplicate
  /// that rank has left. (A rank that fails before it joins the duplicate, as MPI refusing
  /// MPI_Comm_idup, is a rank that never came: the others time out.)
  OwnedComm(MPI_Comm user, double timeout);
  /// The same duplicate without that agreement, for a caller whose next step agrees anyway
  /// and tells the others through the duplicate (run_watched): a failure on this rank once
  /// MPI made the duplicate is put in `failure` and the duplicate returned all the same.
  /// Throws as the constructor does if the duplicate itself fails.
  static OwnedComm duplicate(MPI_Comm user, double timeout, std::exception_ptr& failure);
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
