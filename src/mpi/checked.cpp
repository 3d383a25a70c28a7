// mpi/checked.cpp — see checked.hpp.
#include "mpi/checked.hpp"

#include "mpi/keeper.hpp"
#include "mpi/polled.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

namespace gsr::detail {

void throw_mpi_error(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(ErrorCode::mpi, std::string("gsr: MPI call failed: ") + call + ": " + text + " (" + file + ":" +
                                  std::to_string(line) + ")");
}

void require_communicator(MPI_Comm comm, const char* what) {
  if (comm == MPI_COMM_NULL)
    throw Error(ErrorCode::invalid_argument,
                std::string("gsr: ") + what + ": the communicator (comm) is MPI_COMM_NULL");
  // Every rank of both groups gets here before anything collective, so all of them fail.
  int inter = 0;
  GSR_MPI_CHECK(MPI_Comm_test_inter(comm, &inter));
  if (inter)
    throw Error(ErrorCode::invalid_argument,
                std::string("gsr: ") + what +
                    ": the communicator (comm) is an intercommunicator; gsr works within one group of ranks "
                    "(merge the two groups with MPI_Intercomm_merge first)");
}

int comm_rank(MPI_Comm comm) {
  int r = 0;
  GSR_MPI_CHECK(MPI_Comm_rank(comm, &r));
  return r;
}

int comm_size(MPI_Comm comm) {
  int p = 0;
  GSR_MPI_CHECK(MPI_Comm_size(comm, &p));
  return p;
}

Error timeout_error(double waited, double timeout, const char* what) {
  char text[320];
  std::snprintf(text, sizeof text,
                "gsr: waited %.1f s (GSR_TIMEOUT = %g s) for %s; a rank failed, skipped the call, or stopped", waited,
                timeout, what);
  return Error(ErrorCode::timeout, text);
}

void wait_polled(MPI_Request& request, std::shared_ptr<void> buffers, double timeout) {
  const auto start = std::chrono::steady_clock::now();
  for (int done = 0;;) {
    GSR_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done) return;
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout > 0 && waited > timeout) {
      keep_until_exit(std::move(buffers));
      throw timeout_error(waited, timeout, collective_step);
    }
  }
}

void allreduce_max_polled(std::span<std::int64_t> values, MPI_Comm comm, double timeout) {
  allreduce_polled(values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_MAX, comm, timeout);
}

namespace {

/// The lowest rank that reports a failure (`size` for none): MPI_MIN of every rank's vote,
/// polled so that a rank that never joins costs the others GSR_TIMEOUT, not a hang.
int lowest_failing_rank(MPI_Comm comm, int mine, double timeout) {
  allreduce_polled(&mine, 1, MPI_INT, MPI_MIN, comm, timeout);
  return mine;
}

}  // namespace

void agree_on_errors(MPI_Comm comm, ErrorCode local_code, const std::string& local_message, double timeout,
                     Report report) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  // The lowest failing rank speaks for all; `size` means nobody failed.
  int first = size;
  try {
    first = lowest_failing_rank(comm, local_code == ErrorCode::ok ? size : rank, timeout);
  } catch (const Error& e) {
    if (local_code != ErrorCode::ok) throw Error(local_code, local_message);  // the more telling
    throw;
  }
  if (first == size) return;

  int header[2] = {static_cast<int>(local_code), first == rank ? static_cast<int>(local_message.size()) : 0};
  std::string text(local_message);
  try {
    bcast_polled(header, static_cast<int>(sizeof header), first, comm, timeout);  // the root may have given up
    text.resize(static_cast<std::size_t>(header[1]));
    bcast_polled(text.data(), header[1], first, comm, timeout);
  } catch (const Error&) {
    if (local_code != ErrorCode::ok) throw Error(local_code, local_message);
    throw;
  }

  if (local_code != ErrorCode::ok) throw Error(local_code, local_message);
  if (report == Report::same_everywhere) throw Error(static_cast<ErrorCode>(header[0]), text);
  throw Error(ErrorCode::remote, "gsr: rank " + std::to_string(first) + " failed: " + text);
}

}  // namespace gsr::detail
