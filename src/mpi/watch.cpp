// mpi/watch.cpp — see watch.hpp.
#include "mpi/watch.hpp"

#include "mpi/keeper.hpp"
#include "mpi/seam.hpp"

#include <utility>

namespace gsr::detail {

namespace {

// No method of a call uses a tag this high; MPI guarantees tags up to 32767.
constexpr int notice_tag = 32767;

}  // namespace

PendingSends::~PendingSends() {
  bool pending = false;
  for (MPI_Request r : requests) pending = pending || r != MPI_REQUEST_NULL;
  if (!pending) return;
  struct Abandoned {
    std::vector<MPI_Request> requests;
    std::vector<std::shared_ptr<const void>> buffers;
  };
  try {
    keep_until_exit(Abandoned{std::move(requests), std::move(buffers_)});
  } catch (...) {
    // No memory even for that (a destructor must not throw): the buffers go with the call.
  }
}

void PendingSends::clear() noexcept {
  requests.clear();
  buffers_.clear();
}

void Watch::check(double since) {
  int noticed = 0;
  GSR_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, notice_tag, comm_, &noticed, MPI_STATUS_IGNORE));
  if (noticed) throw PeerFailed{};
  const double waited = MPI_Wtime() - since;
  if (settings_.timeout > 0 && waited > settings_.timeout)
    throw timeout_error(waited, settings_.timeout, "another rank's message in this call");
}

double Watch::begin_wait() {
  seam::reached(seam::Point::wait);
  return MPI_Wtime();
}

// The waits look for a notice and at the clock once every `checks_every` polls: a wildcard
// probe may cost more than the poll itself (Open MPI scans every peer's queue for one).
constexpr unsigned checks_every = 16;

ProbedMessage Watch::probe(int source, int tag) {
  const double since = begin_wait();
  // The rest of a chunked message is waited for the same way (messages.cpp, match_rest).
  const PollCheck check_rest = [this, since] { check(since); };
  for (unsigned polls = 1;; ++polls) {
    if (std::optional<ProbedMessage> message = try_probe(comm_, source, tag, settings_.chunk_bytes, check_rest))
      return std::move(*message);
    if (polls % checks_every == 0) check(since);
  }
}

void Watch::complete(PendingSends& sends, const char* what) {
  const double since = begin_wait();
  for (unsigned polls = 1; !test_all(sends.requests, what); ++polls)
    if (polls % checks_every == 0) check(since);
  sends.clear();
}

void Watch::tell_others() noexcept {
  int me = 0, ranks = 0;
  if (MPI_Comm_rank(comm_, &me) != MPI_SUCCESS || MPI_Comm_size(comm_, &ranks) != MPI_SUCCESS) return;
  for (int r = 0; r < ranks; ++r) {
    if (r == me) continue;
    // An empty message is sent whole at once (eager); nobody waits for it.
    MPI_Request request = MPI_REQUEST_NULL;
    if (MPI_Isend(nullptr, 0, MPI_BYTE, r, notice_tag, comm_, &request) == MPI_SUCCESS) MPI_Request_free(&request);
  }
}

namespace watch_detail {

void agree_after(MPI_Comm user, OwnedComm& own, Watch& watch, double timeout, ErrorCode code,
                 const std::string& message, const std::exception_ptr& foreign) {
  if (code != ErrorCode::ok) watch.tell_others();
  try {
    agree_on_errors(user, code, message, timeout);
  } catch (const Error&) {
    try {
      keep_until_exit(std::move(own));  // see the top of watch.hpp
    } catch (...) {
    }
    if (foreign) std::rethrow_exception(foreign);
    throw;
  }
}

}  // namespace watch_detail

}  // namespace gsr::detail
