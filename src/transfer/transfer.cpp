// transfer/transfer.cpp — gsr::transfer_bytes (include/gsr/transfer.hpp): duplicates the
// communicator, checks this rank's arguments and agrees on them (one agreement step), checks
// that the ranks agree on the record size and the method and gathers the counts automatic
// needs (one allreduce), then runs the method. Also the names of the methods.
#include <gsr/transfer.hpp>

#include "mpi/checked.hpp"
#include "mpi/comm.hpp"
#include "transfer/methods.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
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
  const double direct = alpha_seconds * (static_cast<double>(most_partners) + stages) +
                        beta_seconds_per_byte * w * n * (p - 1) / p;
  const double crystal = alpha_seconds * stages + beta_seconds_per_byte * n * (w + 8) * stages / 2;
  return crystal < direct ? TransferMethod::crystal_router : TransferMethod::direct;
}

/// This rank's arguments; throws Error(invalid_argument) naming the first bad one. Returns
/// the number of distinct ranks other than this one that records go to.
std::int64_t check_arguments(const void* records, std::size_t count, std::size_t record_bytes,
                             std::span<const int> destinations, int me, int ranks,
                             const std::function<void*(std::size_t)>& make_room, TransferMethod method) {
  auto bad = [](const std::string& what) { throw Error(ErrorCode::invalid_argument, "gsr: transfer: " + what); };
  if (!known(method))
    bad("unknown method code " + std::to_string(static_cast<int>(method)) +
        " (expected 0 auto, 1 direct, 2 crystal_router or 3 two_round)");
  if (!make_room) bad("no storage for the records received (make_room is empty; C: an output pointer is NULL)");
  if (count > 0 && record_bytes == 0)
    bad("record size is 0 bytes but " + std::to_string(count) + " records were given");
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
  // The same collective steps as transfer_bytes up to its agreement, which then fails.
  detail::require_communicator(comm, "gsr::transfer");
  const detail::OwnedComm owned(comm);
  const Error why(code, message);
  detail::collectively(owned.get(), [&] { throw why; });
  throw why;  // not reached: the agreement throws this rank's own error
}

TransferResult transfer_bytes(const void* records, std::size_t count, std::size_t record_bytes,
                              std::span<const int> destinations, MPI_Comm comm,
                              const std::function<void*(std::size_t)>& make_room, TransferMethod method) {
  using namespace detail;
  require_communicator(comm, "gsr::transfer");
  const OwnedComm owned(comm);
  const MPI_Comm c = owned.get();
  const int me = owned.rank(), ranks = owned.size();

  std::int64_t partners = 0;
  collectively(c, [&] {
    partners = check_arguments(records, count, record_bytes, destinations, me, ranks, make_room, method);
  });

  // Maxima over the ranks; a value and its negation give the minimum too.
  std::array<std::int64_t, 6> agreed = {static_cast<std::int64_t>(record_bytes), -static_cast<std::int64_t>(record_bytes),
                                        static_cast<std::int64_t>(method),       -static_cast<std::int64_t>(method),
                                        static_cast<std::int64_t>(count),        partners};
  GSR_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, agreed.data(), static_cast<int>(agreed.size()), MPI_INT64_T, MPI_MAX, c));
  if (agreed[0] != -agreed[1])
    throw Error(ErrorCode::mismatch, "gsr: transfer: ranks disagree about the record size (some pass " +
                                         std::to_string(-agreed[1]) + " bytes, others " + std::to_string(agreed[0]) +
                                         ")");
  if (agreed[2] != -agreed[3])
    throw Error(ErrorCode::mismatch,
                "gsr: transfer: ranks disagree about the method (some ask for " +
                    std::string(to_string(static_cast<TransferMethod>(-agreed[3]))) + ", others for " +
                    std::string(to_string(static_cast<TransferMethod>(agreed[2]))) + ")");

  TransferResult result;
  result.stats.method =
      method == TransferMethod::automatic ? choose(ranks, agreed[4], agreed[5], agreed[0]) : method;
  const Outbox out{static_cast<const std::byte*>(records), count, record_bytes, destinations.data()};
  const Inbox in{make_room, result.sources};
  switch (result.stats.method) {
    case TransferMethod::direct: result.stats.rounds = transfer_direct(c, out, in); break;
    case TransferMethod::crystal_router: result.stats.rounds = transfer_crystal_router(c, out, in); break;
    case TransferMethod::two_round: result.stats.rounds = transfer_two_round(c, out, in); break;
    case TransferMethod::automatic: break;  // resolved above
  }
  result.count = result.sources.size();
  return result;
}

}  // namespace gsr
