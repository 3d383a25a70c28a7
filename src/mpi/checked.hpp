// mpi/checked.hpp — checked MPI calls, and the agreement step that turns an error found
// on one rank into an error on every rank.
#pragma once

#include "config/config.hpp"

#include <gsr/error.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>

namespace gsr::detail {

[[noreturn]] void throw_mpi_error(int code, const char* call, const char* file, int line);

#define GSR_MPI_CHECK(call)                                                                                 \
  do {                                                                                                      \
    const int gsr_mpi_rc_ = (call);                                                                         \
    if (gsr_mpi_rc_ != MPI_SUCCESS) ::gsr::detail::throw_mpi_error(gsr_mpi_rc_, #call, __FILE__, __LINE__); \
  } while (0)

/// Throws invalid_argument for MPI_COMM_NULL, which no collective can run on (so this error
/// stays local: there is no communicator to tell the other ranks through), and for an
/// intercommunicator, whose collectives would join the two groups' data (every rank of
/// both groups gets the error).
void require_communicator(MPI_Comm comm, const char* what);

int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

/// The Error(timeout) of a wait that lasted `waited` seconds against GSR_TIMEOUT = `timeout`
/// for `what` ("every rank of the communicator to join this collective step", say).
Error timeout_error(double waited, double timeout, const char* what);

/// What a setup step waits for, in its timeout_error (docs/errors.md, E-SETUP-TIMEOUT).
inline constexpr const char* collective_step = "every rank of the communicator to join this collective step";

/// Waits for `request`, a collective of gsr's on a communicator some rank may never join,
/// polling: after `timeout` seconds (GSR_TIMEOUT; 0: no limit) it hands `buffers` (what MPI
/// may still write, and the request) to the keeper and throws Error(timeout).
void wait_polled(MPI_Request& request, std::shared_ptr<void> buffers, double timeout);

/// MPI_Allreduce(MPI_MAX) of int64 values in place, waited for as wait_polled does: for the
/// steps that follow an agreement, which a rank that gave up on it (GSR_TIMEOUT) never joins.
void allreduce_max_polled(std::span<std::int64_t> values, MPI_Comm comm, double timeout);

/// What the other ranks throw when one rank failed.
enum class Report {
  remote,           // ErrorCode::remote, quoting the failing rank ("rank 2 failed: ...")
  same_everywhere,  // the failing rank's own code and message (a bad file is bad for all)
};

/// Collective: every rank passes its own local error (ErrorCode::ok: none). If any rank
/// had one, every rank throws: the failing rank its own error, the others as `report`
/// says, quoting the lowest failing rank. A rank that never arrives (it failed before this
/// step, say on a NULL argument it could not report through the communicator) makes the
/// others throw ErrorCode::timeout after `timeout` seconds instead of waiting forever.
void agree_on_errors(MPI_Comm comm, ErrorCode local_code, const std::string& local_message, double timeout,
                     Report report = Report::remote);

/// Runs `body` (rank-local work: no collective calls inside); converts a gsr::Error it
/// throws into the agreement above, so that a rank-local failure inside a collective step
/// becomes an error on every rank.
template <class Body>
void collectively(MPI_Comm comm, double timeout, Body&& body, Report report = Report::remote) {
  ErrorCode code = ErrorCode::ok;
  std::string message;
  try {
    body();
  } catch (const Error& e) {
    code = e.code();
    message = e.what();
  } catch (const std::bad_alloc&) {
    code = ErrorCode::internal;
    message = "gsr: out of memory";
  }
  agree_on_errors(comm, code, message, timeout, report);
}

}  // namespace gsr::detail
