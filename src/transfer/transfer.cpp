// transfer/transfer.cpp — gsr::transfer_bytes (include/gsr/transfer.hpp): checks this
// rank's arguments and agrees on them (one agreement step, polled, so a rank that never
// comes costs the others GSR_TIMEOUT, not a hang), checks that the ranks agree on the record
// size, the method and the tuple layout and gathers the counts automatic needs (one
// allreduce), all on the caller's communicator; then duplicates it and runs the method under
// a watch (mpi/watch.hpp) that ends in one more agreement, so a rank failing midway fails
// every rank. Also the names of the methods.
#include <gsr/transfer.hpp>

#include "mpi/checked.hpp"
#include "mpi/comm.hpp"
#include "mpi/threads.hpp"
#include "mpi/watch.hpp"
#include "transfer/methods.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>

namespace gsr {

namespace {

struct MethodName {
  TransferMethod method;
  std::string_view name;
};
constexpr MethodName method_names[] = {{TransferMethod::automatic, "auto"},
                                       {TransferMethod::direct, "direct"},
                                       {TransferMethod::crystal_router, "crystal_router"},
                                       {TransferMethod::two_round, "two_round"}};

bool known(TransferMethod m) {
  return std::any_of(std::begin(method_names), std::end(method_names),
                     [m](const MethodName& n) { return n.method == m; });
}

// The alpha-beta model's defaults, as in the gather-scatter cost model (docs/methods.md):
// a few microseconds per message, about 1 GB/s per stream.
constexpr double alpha_seconds = 2e-6;
constexpr double beta_seconds_per_byte = 1e-9;

int ceil_log2(int p) {
  int d = 0;
  while ((1LL << d) < p) ++d;
  return d;
}

/// The rule of docs/transfer.md ("Automatic choice"): from the largest record count and the
/// largest number of partners over the ranks, the predicted time of the direct method (one
/// message per partner and the consensus barrier's ceil(log2 P) steps; the records not for
/// the rank itself, (P-1)/P of them for a spread pattern, sent once) against the crystal
/// router's (ceil(log2 P) messages; half the records held cross at each stage, with an
/// 8-byte envelope). Ties go to direct. Every rank passes the same numbers, so every rank
/// picks the same.
TransferMethod choose(int ranks, std::int64_t most_records, std::int64_t most_partners, std::int64_t record_bytes) {
  const double n = static_cast<double>(most_records), w = static_cast<double>(record_bytes);
  const double p = ranks, stages = ceil_log2(ranks);
  const double direct =
      alpha_seconds * (static_cast<double>(most_partners) + stages) + beta_seconds_per_byte * w * n * (p - 1) / p;
  const double crystal = alpha_seconds * stages + beta_seconds_per_byte * n * (w + 8) * stages / 2;
  return crystal < direct ? TransferMethod::crystal_router : TransferMethod::direct;
}

/// This rank's arguments; throws Error(invalid_argument) naming the first bad one. Returns
/// the number of distinct ranks other than this one that records go to.
std::int64_t check_arguments(const void* records, std::size_t count, std::size_t record_bytes,
                             std::span<const int> destinations, int me, int ranks,
                             const std::function<void*(std::size_t)>& make_room, TransferMethod method,
                             const TupleLayout* layout) {
  auto bad = [](const std::string& what) { throw Error(ErrorCode::invalid_argument, "gsr: transfer: " + what); };
  if (layout && (layout->integers < 0 || layout->longs < 0 || layout->reals < 0))
    bad("a tuple cannot have a negative number of columns (integers " + std::to_string(layout->integers) + ", longs " +
        std::to_string(layout->longs) + ", reals " + std::to_string(layout->reals) + ")");
  if (!known(method))
    bad("unknown method code " + std::to_string(static_cast<int>(method)) +
        " (expected 0 auto, 1 direct, 2 crystal_router or 3 two_round)");
  if (!make_room) bad("no storage for the records received (make_room is empty; C: an output pointer is NULL)");
  if (count > 0 && record_bytes == 0)
    bad("record size is 0 bytes but " + std::to_string(count) + " records were given");
  // Every size below is then exact in int64 (the agreement) and in size_t (the buffers of
  // the routed methods, which put an 8-byte envelope in front of each record).
  constexpr std::size_t most_bytes = static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max());
  const std::size_t stride_limit = most_bytes - sizeof(detail::Envelope);
  if (record_bytes > stride_limit)
    bad("record size " + std::to_string(record_bytes) + " bytes is more than memory can hold (at most " +
        std::to_string(stride_limit) + ")");
  if (count > 0 && count > most_bytes / (record_bytes + sizeof(detail::Envelope)))
    bad(std::to_string(count) + " records of " + std::to_string(record_bytes) +
        " bytes (and an 8-byte envelope each) are more bytes than memory can hold");
  if (count > 0 && records == nullptr) bad("records is NULL with " + std::to_string(count) + " records");
  // A NULL destination array comes from C as an empty span (a span of NULL cannot have a
  // length), so it is named before the lengths are compared.
  if (count > 0 && destinations.data() == nullptr)
    bad("destinations is NULL with " + std::to_string(count) + " records");
  if (destinations.size() != count)
    bad(std::to_string(count) + " records but " + std::to_string(destinations.size()) +
        " destinations (one destination rank per record)");
  std::vector<bool> partner(static_cast<std::size_t>(ranks), false);
  std::int64_t partners = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const int d = destinations[i];
    if (d < 0 || d >= ranks)
      bad("destination " + std::to_string(d) + " of record " + std::to_string(i) +
          " is not a rank of the communicator (0 to " + std::to_string(ranks - 1) + ")");
    if (d != me && !partner[d]) {
      partner[d] = true;
      ++partners;
    }
  }
  return partners;
}

}  // namespace

std::string_view to_string(TransferMethod m) noexcept {
  for (const MethodName& n : method_names)
    if (n.method == m) return n.name;
  return "unknown";
}

std::optional<TransferMethod> transfer_method_from_string(std::string_view name) noexcept {
  for (const MethodName& n : method_names)
    if (n.name == name) return n.method;
  return std::nullopt;
}

TransferRoundStats TransferStats::total() const noexcept {
  TransferRoundStats sum;
  for (const TransferRoundStats& r : rounds) {
    sum.messages_sent += r.messages_sent;
    sum.messages_received += r.messages_received;
    sum.records_sent += r.records_sent;
    sum.records_received += r.records_received;
    sum.bytes_sent += r.bytes_sent;
    sum.bytes_received += r.bytes_received;
    sum.largest_message_records = std::max(sum.largest_message_records, r.largest_message_records);
    sum.largest_message_bytes = std::max(sum.largest_message_bytes, r.largest_message_bytes);
  }
  return sum;
}

void fail_transfer(MPI_Comm comm, ErrorCode code, const std::string& message) {
  // The same collective step as transfer_bytes's first, which then fails.
  detail::require_communicator(comm, "gsr::transfer");
  const Error why(code, message);
  detail::collectively(comm, detail::timeout_or_default({}), [&] { throw why; });
  throw why;  // not reached: the agreement throws this rank's own error
}

TransferResult transfer_bytes(const void* records, std::size_t count, std::size_t record_bytes,
                              std::span<const int> destinations, MPI_Comm comm,
                              const std::function<void*(std::size_t)>& make_room, TransferMethod method) {
  return detail::transfer_records(records, count, record_bytes, destinations, comm, make_room,
                                  TransferOptions{method, {}}, nullptr);
}

TransferResult transfer_bytes(const void* records, std::size_t count, std::size_t record_bytes,
                              std::span<const int> destinations, MPI_Comm comm,
                              const std::function<void*(std::size_t)>& make_room, const TransferOptions& options) {
  return detail::transfer_records(records, count, record_bytes, destinations, comm, make_room, options, nullptr);
}

TransferResult transfer_tuples(const void* records, std::size_t count, std::size_t record_bytes,
                               std::span<const int> destinations, MPI_Comm comm,
                               const std::function<void*(std::size_t)>& make_room, const TupleLayout& layout,
                               const MessageOptions& options) {
  return detail::transfer_records(records, count, record_bytes, destinations, comm, make_room,
                                  TransferOptions{TransferMethod::automatic, options}, &layout);
}

namespace detail {

TransferResult transfer_records(const void* records, std::size_t count, std::size_t record_bytes,
                                std::span<const int> destinations, MPI_Comm comm,
                                const std::function<void*(std::size_t)>& make_room, const TransferOptions& options,
                                const TupleLayout* layout) {
  const TransferMethod method = options.method;
  const ThreadEntry entry(nullptr);
  require_communicator(comm, "gsr::transfer");
  const int me = comm_rank(comm), ranks = comm_size(comm);

  // Agreed on the caller's communicator: a rank that never calls (it failed before the
  // call, on an argument it could not report) leaves the others a timeout, where a
  // duplicate made first would have blocked them.
  std::int64_t partners = 0;
  MessageSettings settings;
  collectively(comm, timeout_or_default(options.messages), [&] {
    partners = check_arguments(records, count, record_bytes, destinations, me, ranks, make_room, method, layout);
    settings = resolve(options.messages);
  });

  // Maxima over the ranks; a value and its negation give the minimum too.
  const TupleLayout tuple = layout ? *layout : TupleLayout{};
  const std::int64_t parts[3] = {tuple.integers, tuple.longs, tuple.reals};
  const std::int64_t bytes = static_cast<std::int64_t>(record_bytes), code = static_cast<std::int64_t>(method);
  std::array<std::int64_t, 12> agreed = {bytes,    -bytes,   code,      -code,    static_cast<std::int64_t>(count),
                                         partners, parts[0], -parts[0], parts[1], -parts[1],
                                         parts[2], -parts[2]};
  allreduce_max_polled(agreed, comm, settings.timeout);  // polled: a rank that gave up on the step above never comes
  if (agreed[0] != -agreed[1])
    throw Error(ErrorCode::mismatch, "gsr: transfer: ranks disagree about the record size (some pass " +
                                         std::to_string(-agreed[1]) + " bytes, others " + std::to_string(agreed[0]) +
                                         ")");
  if (agreed[2] != -agreed[3])
    throw Error(ErrorCode::mismatch, "gsr: transfer: ranks disagree about the method (some ask for " +
                                         std::string(to_string(static_cast<TransferMethod>(-agreed[3]))) +
                                         ", others for " +
                                         std::string(to_string(static_cast<TransferMethod>(agreed[2]))) + ")");
  const auto range = [&](int at) { return std::to_string(-agreed[at + 1]) + " to " + std::to_string(agreed[at]); };
  if (agreed[6] != -agreed[7] || agreed[8] != -agreed[9] || agreed[10] != -agreed[11])
    throw Error(ErrorCode::mismatch,
                "gsr: transfer: ranks disagree about the tuple layout, though not the record size (integers per "
                "tuple from " +
                    range(6) + ", longs from " + range(8) + ", reals from " + range(10) + ")");

  TransferResult result;
  result.stats.method = method == TransferMethod::automatic ? choose(ranks, agreed[4], agreed[5], agreed[0]) : method;
  // Taking the duplicate over failing on this rank is reported by run_watched's agreement.
  std::exception_ptr owned_failure;
  OwnedComm owned = OwnedComm::duplicate(comm, settings.timeout, owned_failure);
  run_watched(comm, owned, owned_failure, settings, "transfer", [&](Watch& watch) {
    const Outbox out{static_cast<const std::byte*>(records), count, record_bytes, destinations.data()};
    const Inbox in{make_room, result.sources};
    switch (result.stats.method) {
      case TransferMethod::direct:
        result.stats.rounds = transfer_direct(watch, out, in);
        break;
      case TransferMethod::crystal_router:
        result.stats.rounds = transfer_crystal_router(watch, out, in);
        break;
      case TransferMethod::two_round:
        result.stats.rounds = transfer_two_round(watch, out, in);
        break;
      case TransferMethod::automatic:
        break;  // resolved above
    }
  });
  result.count = result.sources.size();
  return result;
}

}  // namespace detail

}  // namespace gsr
