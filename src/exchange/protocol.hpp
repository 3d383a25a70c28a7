// exchange/protocol.hpp — what every exchange message looks like and how a receiver
// checks it. Each message starts with a MessageHeader: the sender's call signature, so
// ranks that disagree about a call get a mismatch error instead of garbage, and a status,
// so a rank whose call failed still sends (a header alone) and nobody waits forever.
// A message never reaches a receive too short for it (mpi/messages.hpp), yet a peer that
// disagrees about the call may send more than this rank expects. So a call's message goes
// out as a head of at most message_head_bytes on the call's tag and, when longer, the rest
// (its tail, possibly empty) on the call's tail tag: a receive of message_head_bytes can be
// posted before the message arrives (pairwise does, saving the probe and the copy out of
// MPI's queue of unexpected messages), and a tail is probed and taken whole.
#pragma once

#include <gsr/error.hpp>
#include <gsr/types.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gsr::detail {

/// What one call reduces. Every rank must pass the same, or the call is a mismatch error.
struct CallInfo {
  Domain dom = Domain::float64;
  Op op = Op::add;
  Transpose transpose = Transpose::no;
  std::size_t k = 1;
  bool many = false;
  std::uint64_t call = 0;    // the handle's call number on this rank (1, 2, ...); not in the signature
  std::uint64_t handle = 0;  // the handle's number in setup order, for messages (threads setting up at once may
                             // number theirs differently on different ranks); not in the signature

  std::uint64_t signature() const noexcept;
  std::uint32_t call_tag() const noexcept { return static_cast<std::uint32_t>(call); }
  static CallInfo from_signature(std::uint64_t signature) noexcept;
  std::string describe() const;  // e.g. "dom=double op=add transpose=0 k=1 layout=vec"
  /// How every error found during the call begins: "gsr: handle #1, call #3: ".
  std::string where() const;
};

/// What a message says about its sender's call.
enum class HeaderStatus : std::uint32_t {
  ok = 0,                // values follow
  own_failure = 1,       // the sender's arguments were bad; no values follow
  upstream_problem = 2,  // the sender (a multi-stage method) received a failed or
                         // disagreeing message earlier in this call; no values follow
  // (after either, a method that forwards sends a ProblemRecord instead of values)
};

/// Every message of every method starts with this (16 bytes keeps the values aligned).
struct MessageHeader {
  std::uint64_t signature = 0;  // CallInfo::signature() of the sender's call
  HeaderStatus status = HeaderStatus::ok;
  std::uint32_t call = 0;  // the sender's call number on the handle, modulo 2^32

  static MessageHeader of(const CallInfo& info, HeaderStatus status) noexcept {
    return MessageHeader{info.signature(), status, info.call_tag()};
  }
};
static_assert(sizeof(MessageHeader) == 16);

/// What a rank knows of the problems of a call. A method that forwards (the crystal router)
/// puts it after the header of every problem message it sends, so that ranks further on
/// name the same ranks as a method that hears from every rank directly would.
struct ProblemRecord {
  std::int32_t rejected_rank = -1;        // the lowest rank known to have rejected its arguments
  std::int32_t differing_rank = -1;       // the lowest rank known to call differently from the sender
  std::uint64_t differing_signature = 0;  // that rank's call: signature and number
  std::uint32_t differing_call = 0;
  std::uint32_t unused = 0;
};
static_assert(sizeof(ProblemRecord) == 24);

/// What the messages (or collectives) of one call reveal about the other ranks' calls.
/// Every method reports through it, so one misuse gives the same error whatever the
/// method: the problem of the lowest rank known, whatever order the messages arrived in,
/// in one wording (docs/errors.md, E-CALL-*). A rank that rejected its arguments outranks
/// a disagreement; of a disagreeing rank, a different call number (a skipped call) is
/// reported rather than different arguments.
class HeaderCheck {
public:
  /// A message from `peer`: its header and, in a problem message, the record after it.
  void check(const MessageHeader& h, const ProblemRecord* record, const CallInfo& mine, int peer);
  void check_size(std::size_t got, std::size_t expected, const CallInfo& mine, int peer);
  /// `rank` rejected its arguments for this call (it sent no values).
  void rejected(int rank, const CallInfo& mine);
  /// `rank` made the call with `signature` and number `call`: a disagreement if not mine.
  void compare(int rank, std::uint64_t signature, std::uint32_t call, const CallInfo& mine);
  /// What this rank knows, for the problem messages it sends on.
  ProblemRecord record() const noexcept;
  void throw_if_failed() const;  // call once every message of the call has completed
  bool ok() const noexcept { return rejected_rank_ < 0 && differing_rank_ < 0 && size_rank_ < 0; }

private:
  CallInfo mine_;
  int rejected_rank_ = -1;
  int differing_rank_ = -1;
  std::uint64_t differing_signature_ = 0;
  std::uint32_t differing_call_ = 0;
  int size_rank_ = -1;  // the lowest rank whose message had the wrong length
  std::size_t size_got_ = 0, size_expected_ = 0;
};

/// The longest head of a call's message: every message on a call's tag is at most this
/// long, and one MPI message. Longer messages (about 1,000 values of 8 bytes and more) cost
/// a second MPI message, which their transfer time dwarfs. 8192 bytes, or less where a
/// handle's `chunk_bytes` (mpi/messages.hpp) is smaller, so that tails run, and are cut into
/// chunks, in the chunked-message tests with small messages too.
std::size_t message_head_bytes(std::size_t chunk_bytes) noexcept;
inline constexpr std::size_t usual_message_head_bytes = 8192;

/// Posts a call's message of `bytes` bytes to `dest`: its head on `tag`, and its tail, if it
/// is message_head_bytes or longer, on CallTags::tail(tag). Appends the requests. Here and
/// below, `chunk_bytes` is the handle's (mpi/messages.hpp).
void post_call_message(const std::byte* data, std::size_t bytes, int dest, int tag, MPI_Comm comm,
                       std::vector<MPI_Request>& requests, std::size_t chunk_bytes);

/// If the next message from `peer` with `tag` has arrived, receives it (head and tail) and
/// checks it (check_message), and returns where it landed: at `into` when it is no longer
/// than `capacity` bytes (at least `expected`), else (a peer that disagrees about the call,
/// or a problem message) in `overflow`.
/// Returns nullptr, having received nothing, while the message has not arrived.
const std::byte* try_receive_checked(MPI_Comm comm, int peer, int tag, std::byte* into, std::size_t capacity,
                                     std::size_t expected, std::vector<std::byte>& overflow, const CallInfo& info,
                                     HeaderCheck& check, std::size_t chunk_bytes);

/// Ends the receives `receives` posted for heads (pairwise) when a call stops before taking
/// them: cancels each, and takes whatever already matched whole, its tail included, into
/// `scratch`, so that no late message lands in a buffer reused by a later call and no
/// tail is left for a later call of the same tag. Never throws.
void drain_head_receives(MPI_Comm comm, const std::vector<int>& peers, int tag, std::span<MPI_Request> receives,
                         std::vector<std::byte>& scratch, std::size_t chunk_bytes) noexcept;

/// Takes and drops the tail, if it has one, of a head from `peer` (received, with status
/// `head`) that a call stopping with an error will not use, into `scratch`, so that no
/// later call of the same tag finds it. Never throws.
void drop_tail(MPI_Comm comm, int peer, int tag, const MPI_Status& head, std::vector<std::byte>& scratch,
               std::size_t chunk_bytes) noexcept;

/// A head of `head` bytes from `peer` has landed at `into` (`capacity` bytes of room there,
/// or `into` is `overflow`'s data): receives the tail when there is one (it was sent with
/// the head, so this wait is short), moving the message to `overflow` when it is longer
/// than `capacity`; then checks it and returns where it is, as try_receive_checked.
const std::byte* complete_received_head(MPI_Comm comm, int peer, int tag, std::byte* into, std::size_t head,
                                        std::size_t capacity, std::size_t expected, std::vector<std::byte>& overflow,
                                        const CallInfo& info, HeaderCheck& check, std::size_t chunk_bytes);

/// The tag of a handle's call, from its call number. Each call gets its own, so the
/// messages of requests in flight together never match each other's receives (whether
/// posted when a call is prepared or probed as it progresses, in whatever order the caller
/// waits), even when calls of different sizes go to different methods of one handle (auto's
/// table). Every rank numbers the calls alike. MPI guarantees tags up to 32767; tags below
/// the base are left to setup messages.
class CallTags {
public:
  /// More requests of one handle than this in flight at once would reuse a tag.
  static constexpr std::uint64_t span = 8192;

  static int of(std::uint64_t call) noexcept { return base + static_cast<int>(call % span); }
  /// The tag of the tails of the messages of the call whose tag is `tag` (base + 2 span <= 32767).
  static int tail(int tag) noexcept { return tag + static_cast<int>(span); }

private:
  static constexpr int base = 64;
};

}  // namespace gsr::detail
