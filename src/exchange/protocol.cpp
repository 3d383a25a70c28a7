// exchange/protocol.cpp — see protocol.hpp.
#include "exchange/protocol.hpp"

#include "mpi/messages.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace gsr::detail {

std::uint64_t CallInfo::signature() const noexcept {
  return (static_cast<std::uint64_t>(dom) << 56) | (static_cast<std::uint64_t>(op) << 48) |
         (static_cast<std::uint64_t>(transpose) << 40) | (static_cast<std::uint64_t>(many) << 32) |
         static_cast<std::uint64_t>(k & 0xffffffffu);
}

CallInfo CallInfo::from_signature(std::uint64_t s) noexcept {
  CallInfo c;
  c.dom = static_cast<Domain>(s >> 56);
  c.op = static_cast<Op>((s >> 48) & 0xff);
  c.transpose = static_cast<Transpose>((s >> 40) & 0xff);
  c.many = ((s >> 32) & 0xff) != 0;
  c.k = s & 0xffffffffu;
  return c;
}

std::string CallInfo::describe() const {
  return "dom=" + std::string(to_string(dom)) + " op=" + std::string(to_string(op)) +
         " transpose=" + std::to_string(static_cast<int>(transpose)) + " k=" + std::to_string(k) +
         " layout=" + (many ? "many" : "vec");
}

std::string CallInfo::where() const {
  return "gsr: handle #" + std::to_string(handle) + ", call #" + std::to_string(call) + ": ";
}

void HeaderCheck::check(const MessageHeader& h, const ProblemRecord* record, const CallInfo& mine, int peer) {
  switch (h.status) {
    case HeaderStatus::ok:
    case HeaderStatus::upstream_problem:  // the sender's own call was fine
      compare(peer, h.signature, h.call, mine);
      break;
    case HeaderStatus::own_failure:
    default:
      rejected(peer, mine);
      break;
  }
  if (h.status == HeaderStatus::ok || !record) return;
  if (record->rejected_rank >= 0) rejected(record->rejected_rank, mine);
  if (record->differing_rank >= 0)
    compare(record->differing_rank, record->differing_signature, record->differing_call, mine);
}

void HeaderCheck::rejected(int rank, const CallInfo& mine) {
  mine_ = mine;
  if (rejected_rank_ < 0 || rank < rejected_rank_) rejected_rank_ = rank;
}

void HeaderCheck::compare(int rank, std::uint64_t signature, std::uint32_t call, const CallInfo& mine) {
  if (signature == mine.signature() && call == mine.call_tag()) return;
  mine_ = mine;
  if (differing_rank_ >= 0 && rank > differing_rank_) return;
  differing_rank_ = rank;
  differing_signature_ = signature;
  differing_call_ = call;
}

void HeaderCheck::check_size(std::size_t got, std::size_t expected, const CallInfo& mine, int peer) {
  if (got == expected || (size_rank_ >= 0 && peer > size_rank_)) return;
  mine_ = mine;
  size_rank_ = peer;
  size_got_ = got;
  size_expected_ = expected;
}

ProblemRecord HeaderCheck::record() const noexcept {
  ProblemRecord r;
  r.rejected_rank = rejected_rank_;
  r.differing_rank = differing_rank_;
  r.differing_signature = differing_signature_;
  r.differing_call = differing_call_;
  return r;
}

void HeaderCheck::throw_if_failed() const {
  if (ok()) return;  // the usual case allocates nothing
  const std::string where = mine_.where();
  if (rejected_rank_ >= 0)
    throw Error(ErrorCode::remote, where + "rank " + std::to_string(rejected_rank_) +
                                       " rejected its arguments for this call (see the error there); no values "
                                       "were exchanged");
  if (differing_rank_ >= 0 && differing_call_ != mine_.call_tag())
    throw Error(ErrorCode::mismatch, where + "ranks disagree about the calls of this handle: rank " +
                                         std::to_string(differing_rank_) + " is in its call #" +
                                         std::to_string(differing_call_) + "; a rank skipped or added a call");
  if (differing_rank_ >= 0)
    throw Error(ErrorCode::mismatch, where + "ranks disagree about this call: rank " + std::to_string(differing_rank_) +
                                         " called with " + CallInfo::from_signature(differing_signature_).describe() +
                                         ", this rank with " + mine_.describe());
  if (size_rank_ >= 0)
    throw Error(ErrorCode::mismatch, where + "ranks disagree about this call: rank " + std::to_string(size_rank_) +
                                         " sent " + std::to_string(size_got_) + " bytes where this rank's call (" +
                                         mine_.describe() + ") expects " + std::to_string(size_expected_));
}

std::size_t message_head_bytes(std::size_t chunk_bytes) noexcept {
  const std::size_t limit = chunk_limit(chunk_bytes);
  return limit != 0 && limit < usual_message_head_bytes ? limit : usual_message_head_bytes;
}

void post_call_message(const std::byte* data, std::size_t bytes, int dest, int tag, MPI_Comm comm,
                       std::vector<MPI_Request>& requests, std::size_t chunk_bytes) {
  const std::size_t head = message_head_bytes(chunk_bytes);
  if (bytes < head) {
    post_short_send(data, bytes, dest, tag, comm, requests);
    return;
  }
  requests.reserve(requests.size() + 2);  // a head is never posted without its tail
  post_short_send(data, head, dest, tag, comm, requests);
  post_send(data + head, bytes - head, dest, CallTags::tail(tag), comm, requests, chunk_bytes);
}

namespace {

/// Checks the header (and problem record) and size of a whole message of `bytes` at `at`.
const std::byte* check_message(const std::byte* at, std::size_t bytes, std::size_t expected, const CallInfo& info,
                               int peer, HeaderCheck& check) {
  if (bytes >= sizeof(MessageHeader)) {
    MessageHeader header;
    std::memcpy(&header, at, sizeof header);
    ProblemRecord record;
    const bool has_record = header.status != HeaderStatus::ok && bytes >= sizeof(MessageHeader) + sizeof(ProblemRecord);
    if (has_record) std::memcpy(&record, at + sizeof header, sizeof record);
    check.check(header, has_record ? &record : nullptr, info, peer);
    if (header.status != HeaderStatus::ok) return at;  // a problem message carries no values
  }
  check.check_size(bytes, expected, info, peer);
  return at;
}

}  // namespace

const std::byte* try_receive_checked(MPI_Comm comm, int peer, int tag, std::byte* into, std::size_t capacity,
                                     std::size_t expected, std::vector<std::byte>& overflow, const CallInfo& info,
                                     HeaderCheck& check, std::size_t chunk_bytes) {
  std::optional<ProbedMessage> head = try_probe_short(comm, peer, tag);
  if (!head) return nullptr;
  if (head->bytes > capacity) {
    overflow.resize(head->bytes);
    into = overflow.data();
    capacity = head->bytes;
  }
  receive(*head, into);
  return complete_received_head(comm, peer, tag, into, head->bytes, capacity, expected, overflow, info, check,
                                chunk_bytes);
}

const std::byte* complete_received_head(MPI_Comm comm, int peer, int tag, std::byte* into, std::size_t head,
                                        std::size_t capacity, std::size_t expected, std::vector<std::byte>& overflow,
                                        const CallInfo& info, HeaderCheck& check, std::size_t chunk_bytes) {
  std::size_t bytes = head;
  if (head == message_head_bytes(chunk_bytes)) {
    ProbedMessage tail = probe(comm, peer, CallTags::tail(tag), chunk_bytes);
    bytes += tail.bytes;
    if (bytes > capacity) {
      const bool in_overflow = into == overflow.data();  // then resize keeps the head
      overflow.resize(bytes);
      if (!in_overflow) std::memcpy(overflow.data(), into, head);
      into = overflow.data();
    }
    receive(tail, into + head);
  }
  return check_message(into, bytes, expected, info, peer, check);
}

void drain_head_receives(MPI_Comm comm, const std::vector<int>& peers, int tag, std::span<MPI_Request> receives,
                         std::vector<std::byte>& scratch, std::size_t chunk_bytes) noexcept {
  for (std::size_t j = 0; j < receives.size(); ++j) {
    if (receives[j] == MPI_REQUEST_NULL) continue;
    MPI_Cancel(&receives[j]);
    MPI_Status status;
    if (MPI_Wait(&receives[j], &status) != MPI_SUCCESS) continue;
    int cancelled = 0;
    MPI_Test_cancelled(&status, &cancelled);
    if (cancelled) continue;
    // The head arrived: its tail, if it has one, was sent with it.
    if (j < peers.size()) drop_tail(comm, peers[j], tag, status, scratch, chunk_bytes);
  }
}

void drop_tail(MPI_Comm comm, int peer, int tag, const MPI_Status& head, std::vector<std::byte>& scratch,
               std::size_t chunk_bytes) noexcept {
  int count = 0;
  if (MPI_Get_count(&head, MPI_BYTE, &count) != MPI_SUCCESS ||
      static_cast<std::size_t>(count) != message_head_bytes(chunk_bytes))
    return;  // a head shorter than the limit has no tail
  try {
    ProbedMessage tail = probe(comm, peer, CallTags::tail(tag), chunk_bytes);
    scratch.resize(std::max<std::size_t>(tail.bytes, 1));
    receive(tail, scratch.data());
  } catch (...) {
    // MPI failed, or no memory for the tail: the handle is broken either way, and the
    // error that stopped the call says so.
  }
}

}  // namespace gsr::detail
