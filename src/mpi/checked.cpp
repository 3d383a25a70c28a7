// mpi/checked.cpp — see checked.hpp.
#include "mpi/checked.hpp"

#include "mpi/keeper.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace gsr::detail {

void throw_mpi_error(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(ErrorCode::mpi, std::string("gsr: MPI call failed: ") + call + ": " + text +
                                  " (" + file + ":" + std::to_string(line) + ")");
}

void require_communicator(MPI_Comm comm, const char* what) {
  if (comm == MPI_COMM_NULL)
    throw Error(ErrorCode::invalid_argument, std::string("gsr: ") + what + ": the communicator (comm) is MPI_COMM_NULL");
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

double timeout_from_environment() {
  const char* text = std::getenv("GSR_TIMEOUT");
  if (!text || !*text) return default_timeout_seconds;
  char* end = nullptr;
  errno = 0;
  const double seconds = std::strtod(text, &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(seconds) || seconds < 0)
    throw Error(ErrorCode::invalid_argument, std::string("gsr: GSR_TIMEOUT='") + text +
                                                 "' is not a number of seconds >= 0 (0 turns the limit off)");
  return seconds;
}

namespace {

/// The agreement's reduction, on the heap: when a rank never arrives the others give up on
/// it, but MPI may still write the result when that rank arrives late, so the buffers (and
/// the request, which MPI forbids freeing for a collective) go to the keeper (keeper.hpp).
struct Vote {
  int mine = 0;
  int first = 0;
  MPI_Request request = MPI_REQUEST_NULL;
};

/// The lowest rank that reports a failure (`size` for none): MPI_MIN of every rank's vote,
/// polled so that a rank that never joins costs the others GSR_TIMEOUT, not a hang.
int lowest_failing_rank(MPI_Comm comm, int mine) {
  double timeout = default_timeout_seconds;
  try {
    timeout = timeout_from_environment();
  } catch (const Error&) {
    // A malformed GSR_TIMEOUT is reported by the step that reads it (setup); wait as by default.
  }
  auto vote = std::make_shared<Vote>(Vote{mine, mine, MPI_REQUEST_NULL});
  GSR_MPI_CHECK(MPI_Iallreduce(&vote->mine, &vote->first, 1, MPI_INT, MPI_MIN, comm, &vote->request));
  const auto start = std::chrono::steady_clock::now();
  for (int done = 0;;) {
    GSR_MPI_CHECK(MPI_Test(&vote->request, &done, MPI_STATUS_IGNORE));
    if (done) return vote->first;
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout > 0 && waited > timeout) {
      keep_until_exit(std::shared_ptr<void>(std::move(vote)));
      char text[256];
      std::snprintf(text, sizeof text,
                    "gsr: waited %.1f s (GSR_TIMEOUT = %g s) for every rank of the communicator to join this "
                    "collective step; a rank failed before reaching it, skipped the call, or stopped",
                    waited, timeout);
      throw Error(ErrorCode::timeout, text);
    }
  }
}

}  // namespace

void agree_on_errors(MPI_Comm comm, ErrorCode local_code, const std::string& local_message, Report report) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  // The lowest failing rank speaks for all; `size` means nobody failed.
  int first = size;
  try {
    first = lowest_failing_rank(comm, local_code == ErrorCode::ok ? size : rank);
  } catch (const Error& e) {
    if (local_code != ErrorCode::ok) throw Error(local_code, local_message);  // the more telling
    throw;
  }
  if (first == size) return;

  int header[2] = {static_cast<int>(local_code), first == rank ? static_cast<int>(local_message.size()) : 0};
  GSR_MPI_CHECK(MPI_Bcast(header, 2, MPI_INT, first, comm));
  std::string text(local_message);
  text.resize(static_cast<std::size_t>(header[1]));
  GSR_MPI_CHECK(MPI_Bcast(text.data(), header[1], MPI_CHAR, first, comm));

  if (local_code != ErrorCode::ok) throw Error(local_code, local_message);
  if (report == Report::same_everywhere) throw Error(static_cast<ErrorCode>(header[0]), text);
  throw Error(ErrorCode::remote, "gsr: rank " + std::to_string(first) + " failed: " + text);
}

}  // namespace gsr::detail
