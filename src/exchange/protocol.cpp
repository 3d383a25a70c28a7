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

void HeaderCheck::check(const MessageHeader& h, const CallInfo& mine, int peer) {
  if (code_ != ErrorCode::ok) return;
  switch (h.status) {
    case HeaderStatus::ok: break;
    case HeaderStatus::upstream_problem:
      return fail(ErrorCode::remote, "gsr: rank " + std::to_string(peer) +
                                         " received a failed or disagreeing message earlier in this call; "
                                         "no values were exchanged");
    case HeaderStatus::own_failure:
    default:
      return fail(ErrorCode::remote, "gsr: rank " + std::to_string(peer) +
                                         " rejected its arguments for this call (see its error); no values "
                                         "were exchanged");
  }
  if (h.call != mine.call_tag())
    return fail(ErrorCode::mismatch, "gsr: ranks disagree about the calls: rank " + std::to_string(peer) +
                                         " sent a message of its call #" + std::to_string(h.call) +
                                         " of this handle into this rank's call #" + std::to_string(mine.call) +
                                         "; a rank skipped or added a call");
  if (h.signature != mine.signature())
    fail(ErrorCode::mismatch, "gsr: ranks disagree about call #" + std::to_string(mine.call) +
                                  " of this handle: rank " + std::to_string(peer) + " called with " +
                                  CallInfo::from_signature(h.signature).describe() + ", this rank with " +
                                  mine.describe());
}

void HeaderCheck::check_size(std::size_t got, std::size_t expected, const CallInfo& mine, int peer) {
  if (code_ != ErrorCode::ok || got == expected) return;
  fail(ErrorCode::mismatch, "gsr: ranks disagree about call #" + std::to_string(mine.call) +
                                " of this handle: rank " + std::to_string(peer) + " sent " + std::to_string(got) +
                                " bytes where this rank's call (" + mine.describe() + ") expects " +
                                std::to_string(expected));
}

void HeaderCheck::fail(ErrorCode code, std::string message) {
  if (code_ != ErrorCode::ok) return;
  code_ = code;
  message_ = std::move(message);
}

void HeaderCheck::throw_if_failed() const {
  if (code_ != ErrorCode::ok) throw Error(code_, message_);
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
    check.check(header, info, peer);
  }
  check.check_size(message.bytes, expected, info, peer);
  return into;
}

}  // namespace gsr::detail
