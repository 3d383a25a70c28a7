// exchange/protocol.cpp — see protocol.hpp.
#include "exchange/protocol.hpp"

#include "mpi/messages.hpp"

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

const std::byte* try_receive_checked(MPI_Comm comm, int peer, int tag, std::byte* into, std::size_t expected,
                                     std::vector<std::byte>& overflow, const CallInfo& info, HeaderCheck& check) {
  std::optional<ProbedMessage> probed = try_probe(comm, peer, tag);
  if (!probed) return nullptr;
  ProbedMessage& message = *probed;
  if (message.bytes > expected) {
    overflow.resize(message.bytes);
    into = overflow.data();
  }
  receive(message, into);
  if (message.bytes >= sizeof(MessageHeader)) {
    MessageHeader header;
    std::memcpy(&header, into, sizeof header);
    ProblemRecord record;
    const bool has_record =
        header.status != HeaderStatus::ok && message.bytes >= sizeof(MessageHeader) + sizeof(ProblemRecord);
    if (has_record) std::memcpy(&record, into + sizeof header, sizeof record);
    check.check(header, has_record ? &record : nullptr, info, peer);
    if (header.status != HeaderStatus::ok) return into;  // a problem message carries no values
  }
  check.check_size(message.bytes, expected, info, peer);
  return into;
}

}  // namespace gsr::detail
