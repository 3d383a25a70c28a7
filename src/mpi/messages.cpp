// mpi/messages.cpp — see messages.hpp.
#include "mpi/messages.hpp"

#include "mpi/seam.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace gsr::detail {
namespace {

#if MPI_VERSION >= 4
constexpr bool large_counts = true;
#else
constexpr bool large_counts = false;
#endif

constexpr std::size_t int_max = static_cast<std::size_t>(std::numeric_limits<int>::max());

// One MPI send of `bytes` bytes; more than INT_MAX only where MPI has large counts.
void send_one(const std::byte* data, std::size_t bytes, int dest, int tag, MPI_Comm comm, SendMode mode,
              MPI_Request* request) {
  const bool sync = mode == SendMode::synchronous;
  if (bytes <= int_max) {
    const int count = static_cast<int>(bytes);
    if (sync)
      GSR_MPI_CHECK(MPI_Issend(data, count, MPI_BYTE, dest, tag, comm, request));
    else
      GSR_MPI_CHECK(MPI_Isend(data, count, MPI_BYTE, dest, tag, comm, request));
    return;
  }
#if MPI_VERSION >= 4
  const auto count = static_cast<MPI_Count>(bytes);
  if (sync)
    GSR_MPI_CHECK(MPI_Issend_c(data, count, MPI_BYTE, dest, tag, comm, request));
  else
    GSR_MPI_CHECK(MPI_Isend_c(data, count, MPI_BYTE, dest, tag, comm, request));
#else
  throw Error(ErrorCode::internal, "gsr: a message chunk of " + std::to_string(bytes) + " bytes exceeds INT_MAX");
#endif
}

// One MPI receive of a matched message of `bytes` bytes.
void receive_one(MPI_Message* handle, std::byte* into, std::size_t bytes) {
  if (bytes <= int_max) {
    GSR_MPI_CHECK(MPI_Mrecv(into, static_cast<int>(bytes), MPI_BYTE, handle, MPI_STATUS_IGNORE));
    return;
  }
#if MPI_VERSION >= 4
  GSR_MPI_CHECK(MPI_Mrecv_c(into, static_cast<MPI_Count>(bytes), MPI_BYTE, handle, MPI_STATUS_IGNORE));
#else
  throw Error(ErrorCode::internal, "gsr: a message chunk of " + std::to_string(bytes) + " bytes exceeds INT_MAX");
#endif
}

// After a first chunk of exactly the limit: matches the chunks that follow it, up to and
// including the first shorter one. They were posted together with the first, so they are
// usually on their way; but a sender that failed between two of its chunks never sends the
// rest, so the wait polls (MPI_Improbe) and, every `checks_every` polls, runs `check` (a
// Watch's: a failure notice, GSR_TIMEOUT), which throws to stop it.
void match_rest(MPI_Comm comm, int tag, std::size_t limit, ProbedMessage& message, const PollCheck& check) {
  constexpr unsigned checks_every = 16;  // as the Watch's own waits (watch.cpp)
  message.chunk = limit;
  for (std::size_t chunk = message.bytes; chunk == limit;) {
    MPI_Message handle = MPI_MESSAGE_NULL;
    MPI_Status status;
    int found = 0;
    for (unsigned polls = 1;; ++polls) {
      GSR_MPI_CHECK(MPI_Improbe(message.source, tag, comm, &found, &handle, &status));
      if (found) break;
      if (check && polls % checks_every == 0) check();
    }
    chunk = bytes_of(status);
    message.more.push_back(handle);
    message.bytes += chunk;
  }
}

}  // namespace

std::size_t bytes_of(const MPI_Status& status) {
  MPI_Count count = 0;
  GSR_MPI_CHECK(MPI_Get_elements_x(&status, MPI_BYTE, &count));
  return static_cast<std::size_t>(count);
}

std::size_t chunk_limit(std::size_t chunk_bytes) noexcept {
  if (chunk_bytes != 0) return chunk_bytes;
  return large_counts ? 0 : int_max;
}

void post_send(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm,
               std::vector<MPI_Request>& requests, std::size_t chunk_bytes, SendMode mode) {
  const auto* at = static_cast<const std::byte*>(data);
  const std::size_t limit = chunk_limit(chunk_bytes);
  if (limit == 0 || bytes < limit) {
    requests.push_back(MPI_REQUEST_NULL);
    send_one(at, bytes, dest, tag, comm, mode, &requests.back());
    return;
  }
  for (std::size_t sent = 0;;) {
    const std::size_t chunk = std::min(limit, bytes - sent);
    if (sent > 0) seam::reached(seam::Point::chunk);
    requests.push_back(MPI_REQUEST_NULL);
    send_one(at + sent, chunk, dest, tag, comm, mode, &requests.back());
    sent += chunk;
    if (chunk < limit) return;  // the short (possibly empty) chunk that ends the message
  }
}

void post_short_send(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm,
                     std::vector<MPI_Request>& requests) {
  requests.push_back(MPI_REQUEST_NULL);
  send_one(static_cast<const std::byte*>(data), bytes, dest, tag, comm, SendMode::standard, &requests.back());
}

void post_allreduce_in_place(void* data, std::size_t count, MPI_Datatype type, std::size_t value_bytes, MPI_Op op,
                             MPI_Comm comm, std::vector<MPI_Request>& requests, std::size_t chunk_bytes) {
  auto* at = static_cast<std::byte*>(data);
  const std::size_t per_call = chunk_bytes != 0 ? std::max<std::size_t>(1, chunk_bytes / value_bytes) : int_max;
  if (count <= per_call) {
    requests.push_back(MPI_REQUEST_NULL);
    GSR_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, at, static_cast<int>(count), type, op, comm, &requests.back()));
    return;
  }
#if MPI_VERSION >= 4
  if (chunk_bytes == 0) {
    requests.push_back(MPI_REQUEST_NULL);
    GSR_MPI_CHECK(MPI_Iallreduce_c(MPI_IN_PLACE, at, static_cast<MPI_Count>(count), type, op, comm, &requests.back()));
    return;
  }
#endif
  for (std::size_t done = 0; done < count;) {
    const std::size_t part = std::min(per_call, count - done);
    requests.push_back(MPI_REQUEST_NULL);
    GSR_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, at + done * value_bytes, static_cast<int>(part), type, op, comm,
                                 &requests.back()));
    done += part;
  }
}

ProbedMessage probe(MPI_Comm comm, int source, int tag, std::size_t chunk_bytes) {
  ProbedMessage message;
  MPI_Status status;
  GSR_MPI_CHECK(MPI_Mprobe(source, tag, comm, &message.handle, &status));
  message.bytes = bytes_of(status);
  message.source = status.MPI_SOURCE;
  if (const std::size_t limit = chunk_limit(chunk_bytes); limit != 0) match_rest(comm, tag, limit, message, {});
  return message;
}

namespace {

std::optional<ProbedMessage> try_probe_chunked(MPI_Comm comm, int source, int tag, std::size_t chunk_bytes,
                                               bool chunked, const PollCheck& check) {
  ProbedMessage message;
  MPI_Status status;
  int found = 0;
  GSR_MPI_CHECK(MPI_Improbe(source, tag, comm, &found, &message.handle, &status));
  if (!found) return std::nullopt;
  message.bytes = bytes_of(status);
  message.source = status.MPI_SOURCE;
  if (const std::size_t limit = chunk_limit(chunk_bytes); chunked && limit != 0)
    match_rest(comm, tag, limit, message, check);
  return message;
}

}  // namespace

std::optional<ProbedMessage> try_probe(MPI_Comm comm, int source, int tag, std::size_t chunk_bytes,
                                       const PollCheck& check) {
  return try_probe_chunked(comm, source, tag, chunk_bytes, true, check);
}

std::optional<ProbedMessage> try_probe_short(MPI_Comm comm, int source, int tag) {
  return try_probe_chunked(comm, source, tag, 0, false, {});
}

void receive(ProbedMessage& message, void* into) {
  auto* at = static_cast<std::byte*>(into);
  if (message.more.empty()) {
    receive_one(&message.handle, at, message.bytes);
    return;
  }
  // Chunked: every chunk but the last is exactly the limit long.
  const std::size_t limit = message.chunk;
  receive_one(&message.handle, at, limit);
  std::size_t received = limit;
  for (std::size_t i = 0; i < message.more.size(); ++i) {
    const std::size_t chunk = i + 1 < message.more.size() ? limit : message.bytes - received;
    receive_one(&message.more[i], at + received, chunk);
    received += chunk;
  }
}

void post_receive(void* into, std::size_t bytes, int source, int tag, MPI_Comm comm, MPI_Request& request) {
  GSR_MPI_CHECK(MPI_Irecv(into, static_cast<int>(bytes), MPI_BYTE, source, tag, comm, &request));
}

std::optional<std::size_t> test_receive(MPI_Request& request, const char* what) {
  int done = 0;
  MPI_Status status;
  const int rc = MPI_Test(&request, &done, &status);
  if (rc != MPI_SUCCESS) throw_mpi_error(rc, what, __FILE__, __LINE__);
  if (!done) return std::nullopt;
  return bytes_of(status);
}

bool test_all(std::span<MPI_Request> requests, const char* what, MPI_Status* statuses) {
  if (requests.empty()) return true;
  int done = 0;
  const int rc = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, statuses);
  if (rc != MPI_SUCCESS) throw_mpi_error(rc, what, __FILE__, __LINE__);
  return done != 0;
}

}  // namespace gsr::detail
