// mpi/watch.hpp — the messages of one collective call after its arguments were agreed on
// (record transfer, scatter, gather), guarded so that a rank failing or vanishing midway
// leaves no other rank waiting forever (docs/errors.md, E-TRANSFER-PEER-FAILED).
//
// Every wait of such a call polls instead of blocking, and while it polls it looks for two
// things besides what it waits for: a failure notice (an empty message on `notice_tag`,
// which a rank that failed sends to every other rank of the call's own communicator), and
// the clock (GSR_TIMEOUT seconds without the awaited message or completion). A rank that
// fails, and one that runs out of time, tell the others; one told stops where it is. Then
// every rank, failed or not, joins one closing agreement on the caller's communicator
// (agree_on_errors), so all of them return an error: the failing rank its own, the others
// `remote` naming it; or, where a rank vanished, a timeout after GSR_TIMEOUT.
//
// The closing agreement runs on the caller's communicator, not the call's own, because a
// rank stopped by a notice may have a collective of the call's own pending (the direct
// method's non-blocking barrier) that the failed rank will never join. After a failure the
// call's own communicator is never freed (it goes to the keeper): messages nobody received
// (notices, abandoned sends) stay on it, where a later duplicate, which MPI may give the
// freed one's context, would otherwise match them.
//
// Sends left pending when a call stops are abandoned: their requests, and the buffers given
// to PendingSends::hold, go to the keeper (keeper.hpp), so MPI can never read freed memory
// of gsr's. A send straight from the caller's memory (scatter and gather send large blocks
// where they lie) cannot be kept that way: it is addressed to the rank that left the call,
// which never receives it, so MPI does not read it again unless its eager data was still
// queued (a few kilobytes at most).
#pragma once

#include "mpi/checked.hpp"
#include "mpi/comm.hpp"
#include "mpi/messages.hpp"

#include <mpi.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace gsr::detail {

/// Thrown by a Watch's waits when another rank of the call reported a failure: the closing
/// agreement will say which.
struct PeerFailed {};

/// Sends in flight and the gsr buffers they read. Waited for by Watch::complete; destroyed
/// with some still pending (the call stopped), it hands them to the keeper.
class PendingSends {
public:
  PendingSends() = default;
  PendingSends(const PendingSends&) = delete;
  PendingSends& operator=(const PendingSends&) = delete;
  ~PendingSends();

  std::vector<MPI_Request> requests;
  /// Keeps `buffer` alive as long as the sends posted so far may read it.
  void hold(std::shared_ptr<const void> buffer) { buffers_.push_back(std::move(buffer)); }
  /// After every request completed: the buffers may go.
  void clear() noexcept;

private:
  std::vector<std::shared_ptr<const void>> buffers_;
};

class Watch {
public:
  /// `comm`: the call's own communicator; `settings`: its timeout (GSR_TIMEOUT, 0: no
  /// limit) and chunking.
  Watch(MPI_Comm comm, const MessageSettings& settings) : comm_(comm), settings_(settings) {}

  MPI_Comm comm() const noexcept { return comm_; }
  /// What the call's sends pass to post_send (messages.hpp).
  std::size_t chunk_bytes() const noexcept { return settings_.chunk_bytes; }

  /// The next message from `source` (or MPI_ANY_SOURCE) with `tag`, matched (messages.hpp).
  ProbedMessage probe(int source, int tag);
  /// Waits until every send completed, then releases their buffers.
  void complete(PendingSends& sends, const char* what);
  /// A wait loop of the caller's own: begin_wait() gives its start (MPI_Wtime), check(since)
  /// is one step, which throws PeerFailed if a notice came, Error(timeout) when the wait is
  /// over GSR_TIMEOUT.
  double begin_wait();
  void check(double since);

  /// Tells every other rank of the call that this one failed (sends are not waited for).
  void tell_others() noexcept;

private:
  MPI_Comm comm_;
  MessageSettings settings_;
};

/// Runs `body(watch)`, the messages of a call (`what`: "transfer", "scatter", "gather") on `own` (its own communicator,
/// from OwnedComm::duplicate) after the ranks agreed on its arguments on `user`; then every rank agrees on `user`
/// whether any failed (see the top). `own_failure`, taking `own` over failed on this rank (OwnedComm::duplicate),
/// counts as a failure of the body before its first message. Throws on every rank if any failed; an exception of the
/// body that is not a gsr::Error (a caller's make_room threw it) is rethrown as it was on its rank.
template <class Body>
void run_watched(MPI_Comm user, OwnedComm& own, const std::exception_ptr& own_failure, const MessageSettings& settings,
                 const char* what, Body&& body);

namespace watch_detail {
void agree_after(MPI_Comm user, OwnedComm& own, Watch& watch, double timeout, ErrorCode code,
                 const std::string& message, const std::exception_ptr& foreign);
}

template <class Body>
void run_watched(MPI_Comm user, OwnedComm& own, const std::exception_ptr& own_failure, const MessageSettings& settings,
                 const char* what, Body&& body) {
  Watch watch(own.get(), settings);
  ErrorCode code = ErrorCode::ok;
  std::string message;
  std::exception_ptr foreign;
  try {
    if (own_failure) std::rethrow_exception(own_failure);
    body(watch);
  } catch (const PeerFailed&) {
  } catch (const Error& e) {
    code = e.code();
    message = e.what();
  } catch (const std::bad_alloc&) {
    code = ErrorCode::internal;
    message = std::string("gsr: ") + what + ": out of memory";
  } catch (const std::exception& e) {
    code = ErrorCode::internal;
    message = std::string("gsr: ") + what + ": the caller's make_room threw: " + e.what();
    foreign = std::current_exception();
  } catch (...) {
    code = ErrorCode::internal;
    message = std::string("gsr: ") + what + ": the caller's make_room threw an exception";
    foreign = std::current_exception();
  }
  watch_detail::agree_after(user, own, watch, settings.timeout, code, message, foreign);
}

}  // namespace gsr::detail
