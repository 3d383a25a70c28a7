// gsr/transfer.hpp — record transfer: every rank hands over records, each addressed to a
// rank of the communicator; every rank gets back the records addressed to it, each with the
// rank that sent it. This is gslib's crystal_tuple_transfer for C++ (docs/transfer.md).
//
//   struct Particle { double x[3]; std::int64_t id; };
//   std::vector<Particle> mine = ...;
//   std::vector<int> owner = ...;                        // owner[i]: the rank mine[i] goes to
//   auto got = gsr::transfer(mine, owner, MPI_COMM_WORLD);
//   // got.records: the particles sent here; got.sources[i]: the rank got.records[i] came from
//
// Order. The received records are sorted by source rank and, within one source, keep the
// order they had on that source. Every method gives the same records in the same order.
//
// Collective over `comm`: every rank calls with the same record size and the same method.
// gsr duplicates `comm` for the call (MPI_Comm_dup), so the caller's messages and error
// handler are never touched. Bad arguments on any rank (a destination that is not a rank, a
// record size of 0 with records, a NULL pointer with records) are an error on every rank, as
// is a disagreement about the record size or the method; nothing is sent then (docs/errors.md,
// E-TRANSFER-*). Counts have no limit but memory: messages over 2^31 bytes are fine.
#pragma once

#include <gsr/error.hpp>
#include <gsr/options.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace gsr {

/// How records travel (docs/transfer.md has their costs and when each wins).
///   direct:         every rank sends one message to each rank it has records for, by
///                   sparse non-blocking consensus (nobody learns counts beforehand);
///   crystal_router: ceil(log2 P) stages of recursive halving; at each stage a rank sends one
///                   message bundling every record bound for the other half;
///   two_round:      records are dealt evenly over all ranks, then forwarded to their
///                   destinations: two rounds of P-1 messages whose sizes are bounded
///                   whatever the pattern;
///   automatic:      direct or crystal_router, whichever the alpha-beta model predicts to be
///                   cheaper from the largest record count and partner count over the ranks.
enum class TransferMethod : int { automatic = 0, direct = 1, crystal_router = 2, two_round = 3 };

/// Every concrete transfer method.
inline constexpr TransferMethod concrete_transfer_methods[] = {TransferMethod::direct, TransferMethod::crystal_router,
                                                               TransferMethod::two_round};

std::string_view to_string(TransferMethod m) noexcept;

/// Parses "direct", "crystal_router", "two_round" or "auto"; nullopt for anything else.
std::optional<TransferMethod> transfer_method_from_string(std::string_view name) noexcept;

/// One round (stage) of a transfer, as seen from one rank. Messages to itself are not sent
/// and not counted; every message counted here went through MPI, empty ones included.
struct TransferRoundStats {
  std::size_t messages_sent = 0, messages_received = 0;
  std::size_t records_sent = 0, records_received = 0;
  std::size_t bytes_sent = 0, bytes_received = 0;  // what MPI carried, envelopes included
  std::size_t largest_message_records = 0;         // of the messages this rank sent
  std::size_t largest_message_bytes = 0;
};

struct TransferStats {
  TransferMethod method = TransferMethod::direct;  // the method used (automatic resolved)
  std::vector<TransferRoundStats> rounds;          // direct: 1; crystal_router: its stages on
                                                   // this rank (0 at P = 1); two_round: 2
  std::size_t stages() const noexcept { return rounds.size(); }
  /// The rounds summed (largest_*: the largest over the rounds).
  TransferRoundStats total() const noexcept;
};

/// What a rank receives: `count` records, record i from rank `sources[i]`.
struct TransferResult {
  std::size_t count = 0;
  std::vector<int> sources;
  TransferStats stats;
};

// ---- byte-level core (what the C and Fortran interfaces call) ---------------------------------

/// Moves `count` records of `record_bytes` bytes each, stored back to back at `records`;
/// record i goes to rank `destinations[i]` (`destinations` holds exactly `count` ranks). The
/// received records are written to the storage `make_room(n)` returns (n * record_bytes
/// bytes; called once, after the exchange, with the number of records received, also when it
/// is 0). Collective over `comm`.
TransferResult transfer_bytes(const void* records, std::size_t count, std::size_t record_bytes,
                              std::span<const int> destinations, MPI_Comm comm,
                              const std::function<void*(std::size_t count)>& make_room,
                              TransferMethod method = TransferMethod::automatic);

/// A transfer's method and the settings of its messages (gsr/options.hpp; unset: the
/// environment's).
struct TransferOptions {
  TransferMethod method = TransferMethod::automatic;
  MessageOptions messages;
};

/// transfer_bytes with options.
TransferResult transfer_bytes(const void* records, std::size_t count, std::size_t record_bytes,
                              std::span<const int> destinations, MPI_Comm comm,
                              const std::function<void*(std::size_t count)>& make_room, const TransferOptions& options);

/// What a record holds when it is a tuple of columns (the Fortran crystal router's `mi`,
/// `ml` and `mr`): integers, longs and reals, in that order.
struct TupleLayout {
  std::int64_t integers = 0;
  std::int64_t longs = 0;
  std::int64_t reals = 0;
};

/// transfer_bytes for tuples of `layout`, which every rank must pass alike, not only their
/// size: records of one size but other columns would be read wrongly
/// (E-TRANSFER-DISAGREE-LAYOUT). The method is automatic.
TransferResult transfer_tuples(const void* records, std::size_t count, std::size_t record_bytes,
                               std::span<const int> destinations, MPI_Comm comm,
                               const std::function<void*(std::size_t count)>& make_room, const TupleLayout& layout,
                               const MessageOptions& options = {});

/// For wrappers that find an argument of their own bad (a Fortran tuple column, say) before
/// they can pass it on: takes part in the other ranks' transfer on `comm` as a rank with a
/// bad argument does, so theirs fails with ErrorCode::remote quoting `message` instead of
/// waiting; then throws Error(code, message). Collective like transfer_bytes.
[[noreturn]] void fail_transfer(MPI_Comm comm, ErrorCode code, const std::string& message);

// ---- typed front end ---------------------------------------------------------------------------

template <class T>
struct Received {
  std::vector<T> records;    // sorted by source rank, then by position on the source
  std::vector<int> sources;  // sources[i]: the rank records[i] came from
  TransferStats stats;
};

/// Sends records[i] to rank destinations[i] (the two spans must be equally long).
template <class T>
Received<T> transfer(std::span<const T> records, std::span<const int> destinations, MPI_Comm comm,
                     const TransferOptions& options) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "gsr::transfer: records must be trivially copyable and default constructible");
  Received<T> out;
  TransferResult result = transfer_bytes(
      records.data(), records.size(), sizeof(T), destinations, comm,
      [&out](std::size_t n) -> void* {
        out.records.resize(n);
        return out.records.data();
      },
      options);
  out.sources = std::move(result.sources);
  out.stats = std::move(result.stats);
  return out;
}

template <class T>
Received<T> transfer(std::span<const T> records, std::span<const int> destinations, MPI_Comm comm,
                     TransferMethod method = TransferMethod::automatic) {
  return transfer(records, destinations, comm, TransferOptions{method, {}});
}

template <class T>
Received<T> transfer(const std::vector<T>& records, std::span<const int> destinations, MPI_Comm comm,
                     TransferMethod method = TransferMethod::automatic) {
  return transfer(std::span<const T>(records), destinations, comm, TransferOptions{method, {}});
}

template <class T>
Received<T> transfer(const std::vector<T>& records, std::span<const int> destinations, MPI_Comm comm,
                     const TransferOptions& options) {
  return transfer(std::span<const T>(records), destinations, comm, options);
}

}  // namespace gsr
