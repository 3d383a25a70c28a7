// mpi/messages.hpp — sending and receiving messages of any length, and completing requests.
// Every exchange method, setup's sparse exchange and (later) the record transfer post their
// messages here, so the two rules below hold everywhere.
//
// Any length. MPI counts are `int`s. A message longer than INT_MAX bytes goes out whole
// through MPI-4's large-count calls (MPI_Isend_c, MPI_Mrecv_c, ...) where the MPI library
// has them (MPICH 4), and otherwise (MPI-3 libraries such as Open MPI 4.1) in chunks of at
// most `chunk_limit(chunk_bytes)` bytes, sent back to back on the same tag. Every chunk but the last
// is exactly the limit long, so a chunk shorter than the limit (possibly empty) ends the
// message; MPI delivers one sender's messages on one tag and communicator in order, so the
// receiver reassembles them with no extra header. Messages shorter than the limit are one
// MPI message either way. Every rank of a communicator must use the same limit: each call
// below takes `chunk_bytes`, MessageOptions::chunk_bytes as the handle or call was given it
// (0 but in tests of the chunked path).
//
// Never truncated. A receive posted for fewer bytes than its message carries fails with
// MPI_ERR_TRUNCATE, and MPICH raises that error on MPI_COMM_WORLD's handler (which aborts),
// not on the request's communicator. So gsr never posts such a receive: a message of
// unknown size is probed first and received at the size it really has.
#pragma once

#include "mpi/checked.hpp"

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

namespace gsr::detail {

/// The longest chunk a message is cut into: `chunk_bytes` if not 0 (every message of that
/// many bytes or more goes in chunks, and every allreduce in calls of at most that many
/// bytes, even where MPI has large counts); else 0 where messages of any length go whole
/// (MPI-4 large counts), INT_MAX where they cannot.
std::size_t chunk_limit(std::size_t chunk_bytes) noexcept;

enum class SendMode { standard, synchronous };

/// Posts a nonblocking send of `bytes` bytes at `data`, in chunks if it must be, and appends
/// its requests (one per MPI message) to `requests`. `data` must stay put until they complete.
void post_send(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm,
               std::vector<MPI_Request>& requests, std::size_t chunk_bytes, SendMode mode = SendMode::standard);

/// Posts one MPI message of `bytes` (< INT_MAX) bytes, never cut into chunks: for messages
/// whose receiver posts a receive of a known size for them, or probes them with
/// `chunked = false`.
void post_short_send(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm,
                     std::vector<MPI_Request>& requests);

/// Posts an in-place nonblocking allreduce of `count` values of the predefined `type`
/// (`value_bytes` each) with `op`, split into several collectives if one MPI call cannot
/// count them, and appends its requests to `requests`. Collective: every rank passes the
/// same count, type and op.
void post_allreduce_in_place(void* data, std::size_t count, MPI_Datatype type, std::size_t value_bytes, MPI_Op op,
                             MPI_Comm comm, std::vector<MPI_Request>& requests, std::size_t chunk_bytes);

/// A matched, not yet received message (MPI_Mprobe): nobody else can receive it. A message
/// that came in chunks holds every chunk matched, in order.
struct ProbedMessage {
  MPI_Message handle = MPI_MESSAGE_NULL;  // the first (usually the only) chunk
  std::size_t bytes = 0;                  // the whole message
  int source = MPI_PROC_NULL;
  std::vector<MPI_Message> more;  // the following chunks, when it came in chunks
  std::size_t chunk = 0;          // then the length of each but the last
};

/// Blocks until the next message from `source` (or MPI_ANY_SOURCE) with `tag` arrives;
/// matches it.
ProbedMessage probe(MPI_Comm comm, int source, int tag, std::size_t chunk_bytes);

/// Run now and then while a wait polls; throws to stop the wait (a Watch's check: a failure
/// notice from another rank, GSR_TIMEOUT). Empty: the wait goes on until it is over.
using PollCheck = std::function<void()>;

/// The next message from `source` (or MPI_ANY_SOURCE) with `tag` if it has begun to arrive
/// (MPI_Improbe), matched; the rest of a chunked message is waited for, polled, with `check`
/// run between the polls.
std::optional<ProbedMessage> try_probe(MPI_Comm comm, int source, int tag, std::size_t chunk_bytes,
                                       const PollCheck& check = {});

/// try_probe for a message sent with post_short_send, which is never chunked.
std::optional<ProbedMessage> try_probe_short(MPI_Comm comm, int source, int tag);

/// Receives a probed message into `into` (at least message.bytes long).
void receive(ProbedMessage& message, void* into);

/// Posts a receive of at most `bytes` (< INT_MAX) bytes from `source` with `tag` into
/// `into`. Every message that can match it must be at most that long (see the top).
void post_receive(void* into, std::size_t bytes, int source, int tag, MPI_Comm comm, MPI_Request& request);

/// Whether the receive `request` has completed (MPI_Test), and then its length in bytes;
/// throws Error(mpi) naming `what` if MPI reports a failure.
std::optional<std::size_t> test_receive(MPI_Request& request, const char* what);

/// Whether every request has completed (MPI_Testall), without blocking; then their
/// statuses are in `statuses` (one per request) unless it is MPI_STATUSES_IGNORE. While
/// some have not, the requests are left as they were (and `statuses` undefined).
bool test_all(std::span<MPI_Request> requests, const char* what, MPI_Status* statuses = MPI_STATUSES_IGNORE);

/// The length in bytes of the message a receive's status describes.
std::size_t bytes_of(const MPI_Status& status);

}  // namespace gsr::detail
