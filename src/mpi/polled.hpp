// mpi/polled.hpp — the collectives gsr runs where some rank may never come: each one a
// non-blocking MPI call waited for by polling (wait_polled, checked.hpp) against the rank's
// GSR_TIMEOUT, so a rank that skipped the call, failed before it, or gave up on an earlier
// step (its own, shorter, GSR_TIMEOUT) costs the others an Error(timeout), never a hang.
// Every collective on a path from a public entry point goes through these (or through
// agree_on_errors, which uses them); docs/errors.md, E-SETUP-TIMEOUT, lists the steps.
//
// On a caller's communicator (whose error handler is the caller's: MPI_ERRORS_ARE_FATAL by
// default) they run under ReturnErrors, so an MPI error in gsr's agreement comes back as
// Error(mpi) instead of aborting the job. On gsr's own duplicates (OwnedComm) that handler
// is MPI_ERRORS_RETURN already and ReturnErrors costs two calls.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace gsr::detail {

/// While it lives, errors of MPI calls on `comm` return (MPI_ERRORS_RETURN) instead of going
/// to the handler the caller set; the caller's handler comes back at the end. Threads of one
/// process that do this on one communicator at once share the switch (it is counted), so the
/// caller's handler is always the one restored.
class ReturnErrors {
public:
  explicit ReturnErrors(MPI_Comm comm);
  ~ReturnErrors();
  ReturnErrors(const ReturnErrors&) = delete;
  ReturnErrors& operator=(const ReturnErrors&) = delete;
  /// Whether the handler was switched (false only if MPI refused to).
  bool switched() const noexcept { return switched_; }
  /// While switched: the caller's handler, to be restored (owned by the switch).
  MPI_Errhandler callers() const;

private:
  MPI_Comm comm_;
  bool switched_ = false;
};

/// MPI_Allreduce of `count` values of `type` in place, polled.
void allreduce_polled(void* values, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, double timeout);

/// MPI_Exscan of `count` values of `type` into `out` (rank 0's left as it was), polled.
void exscan_polled(const void* mine, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, double timeout);

/// MPI_Allgather of `bytes` bytes from every rank (the same number on each), polled: rank r's
/// bytes at r * bytes.
std::vector<std::byte> allgather_polled(const void* mine, int bytes, MPI_Comm comm, double timeout);

/// MPI_Allgatherv of `count` values of `type` from this rank into `out` (`counts` and
/// `offsets` in values, one per rank), polled.
void allgatherv_polled(const void* mine, int count, MPI_Datatype type, void* out, const int* counts, const int* offsets,
                       MPI_Comm comm, double timeout);

/// MPI_Bcast of `bytes` bytes at `data` from `root`, polled.
void bcast_polled(void* data, int bytes, int root, MPI_Comm comm, double timeout);

/// MPI_Alltoall of `count` values of `type` to and from every rank, polled.
void alltoall_polled(const void* send, void* receive, int count, MPI_Datatype type, MPI_Comm comm, double timeout);

/// MPI_Alltoallv of values of `type` (counts and offsets in values, one per rank), polled.
void alltoallv_polled(const void* send, const int* send_counts, const int* send_offsets, void* receive,
                      const int* receive_counts, const int* receive_offsets, MPI_Datatype type, MPI_Comm comm,
                      double timeout);

/// MPI_Barrier, polled: for the few MPI calls that only exist as blocking collectives
/// (MPI_Dist_graph_create_adjacent): once every rank passed it, every rank is in the call.
void barrier_polled(MPI_Comm comm, double timeout);

/// A duplicate of `comm` (MPI_Comm_idup, polled) with the caller's error handler of `comm`
/// (not ReturnErrors' switch, even one another thread holds open); the caller frees it.
MPI_Comm dup_polled(MPI_Comm comm, double timeout);

/// How many ranks of `comm` run on this rank's node, found without MPI_Comm_split_type (a
/// blocking collective): every rank's processor name (MPI_Get_processor_name), hashed and
/// gathered with allgather_polled, counted where it equals this rank's.
int ranks_on_node_polled(MPI_Comm comm, double timeout);

}  // namespace gsr::detail
