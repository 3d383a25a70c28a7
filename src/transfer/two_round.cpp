// transfer/two_round.cpp — the balanced two-round transfer (docs/transfer.md, "Two-round").
//
// Round 1: rank i deals its records for destination j into bins i+j, i+j+1, ... (mod P), the
// k-th such record (in original order) into bin (i + j + k) mod P, and sends bin b to rank b.
// Round 2: rank b re-bins what it holds by final destination (stable, so records stay in
// source order) and sends bin j to rank j. Every rank sends P - 1 messages per round, empty
// ones included, so every receiver knows whom to expect.
//
// Order at the destination d: from source s, the k-th record went through rank
// b = (s + d + k) mod P, so the t-th record from s that arrives through b is record
// k = ((b - s - d) mod P) + t P of s. That puts every record in its place with no sequence
// number on the wire; the Envelope carries only (source, destination).
#include "transfer/methods.hpp"

#include "mpi/checked.hpp"
#include "mpi/messages.hpp"
#include "mpi/watch.hpp"

#include <cstring>
#include <memory>
#include <string>

namespace gsr::detail {

namespace {

constexpr int round_tags[2] = {96, 97};

std::size_t modulo(long long value, int ranks) {
  const long long m = value % ranks;
  return static_cast<std::size_t>(m < 0 ? m + ranks : m);
}

/// Bins of enveloped records, one per rank, laid out back to back.
struct Bins {
  Bins(int ranks, std::size_t record_bytes) : first(static_cast<std::size_t>(ranks) + 1, 0), records(record_bytes) {}
  std::vector<std::size_t> first;  // bin b holds records first[b] .. first[b+1]-1
  EnvelopedRecords records;
  std::size_t count(int b) const { return first[b + 1] - first[b]; }
  const std::byte* at(int b) const { return records.data() + first[b] * records.stride(); }
};

/// Sends bin b to rank b for every b != me, receives one message from every other rank;
/// returns what arrived, one EnvelopedRecords per source (this rank's own bin in its place).
std::vector<EnvelopedRecords> exchange_bins(Watch& watch, int me, int ranks, int tag,
                                            const std::shared_ptr<const Bins>& held, TransferRoundStats& round) {
  const MPI_Comm comm = watch.comm();
  const Bins& bins = *held;
  const std::size_t stride = bins.records.stride();
  PendingSends sends;
  sends.hold(held);
  for (int b = 0; b < ranks; ++b) {
    if (b == me) continue;
    post_send(bins.at(b), bins.count(b) * stride, b, tag, comm, sends.requests, watch.chunk_bytes());
    count_sent(round, bins.count(b), bins.count(b) * stride);
  }
  std::vector<EnvelopedRecords> arrived(static_cast<std::size_t>(ranks), EnvelopedRecords(bins.records.record_bytes()));
  arrived[me].append(bins.at(me), bins.count(me));
  for (int s = 0; s < ranks; ++s) {
    if (s == me) continue;
    ProbedMessage message = watch.probe(s, tag);
    const std::size_t n = whole_units(message.bytes, stride, "a two-round message");
    arrived[s].resize_bytes(message.bytes);
    receive(message, arrived[s].data());
    count_received(round, n, message.bytes);
  }
  watch.complete(sends, "two-round send");
  return arrived;
}

}  // namespace

std::vector<TransferRoundStats> transfer_two_round(Watch& watch, const Outbox& out, const Inbox& in) {
  const MPI_Comm comm = watch.comm();
  const int me = comm_rank(comm), ranks = comm_size(comm);
  const std::size_t w = out.record_bytes;
  std::vector<TransferRoundStats> rounds(2);

  // Round 1: deal. bin_of[i] is record i's bin; next_bin[j] is the bin of the next record
  // for j, (me + j + records for j dealt so far) mod P, stepped without a division.
  std::vector<std::size_t> bin_of(out.count);
  {
    std::vector<std::size_t> next_bin(static_cast<std::size_t>(ranks));
    for (int j = 0; j < ranks; ++j) next_bin[j] = modulo(static_cast<long long>(me) + j, ranks);
    const std::size_t last = static_cast<std::size_t>(ranks) - 1;
    for (std::size_t i = 0; i < out.count; ++i) {
      std::size_t& bin = next_bin[out.destinations[i]];
      bin_of[i] = bin;
      bin = bin == last ? 0 : bin + 1;
    }
  }
  auto dealt = std::make_shared<Bins>(ranks, w);  // shared with the sends (mpi/watch.hpp)
  {
    Bins& deal = *dealt;
    for (std::size_t b : bin_of) ++deal.first[b + 1];
    for (int b = 0; b < ranks; ++b) deal.first[b + 1] += deal.first[b];
    deal.records.resize_bytes(out.count * deal.records.stride());
    std::vector<std::size_t> next(deal.first.begin(), deal.first.end() - 1);
    for (std::size_t i = 0; i < out.count; ++i) {
      std::byte* at = deal.records.data() + next[bin_of[i]]++ * deal.records.stride();
      const Envelope e{me, out.destinations[i]};
      std::memcpy(at, &e, sizeof e);
      if (w > 0) std::memcpy(at + sizeof e, out.records + i * w, w);
    }
  }
  bin_of = {};
  const std::vector<EnvelopedRecords> first_round = exchange_bins(watch, me, ranks, round_tags[0], dealt, rounds[0]);
  dealt.reset();  // release round 1's buffer before round 2 fills its own

  // Round 2: re-bin by final destination, in source order (stable).
  auto forwarded = std::make_shared<Bins>(ranks, w);
  Bins& forward = *forwarded;
  std::size_t held = 0;
  for (const EnvelopedRecords& from : first_round) {
    for (std::size_t i = 0; i < from.size(); ++i) {
      const int j = from.envelope(i).destination;
      if (j < 0 || j >= ranks)
        throw Error(ErrorCode::internal, "gsr: transfer: two-round message names destination " + std::to_string(j));
      ++forward.first[static_cast<std::size_t>(j) + 1];
    }
    held += from.size();
  }
  for (int j = 0; j < ranks; ++j) forward.first[j + 1] += forward.first[j];
  forward.records.resize_bytes(held * forward.records.stride());
  {
    const std::size_t stride = forward.records.stride();
    std::vector<std::size_t> next(forward.first.begin(), forward.first.end() - 1);
    for (const EnvelopedRecords& from : first_round)
      for (std::size_t i = 0; i < from.size(); ++i)
        std::memcpy(forward.records.data() + next[from.envelope(i).destination]++ * stride, from.data() + i * stride,
                    stride);
  }
  const std::vector<EnvelopedRecords> second_round =
      exchange_bins(watch, me, ranks, round_tags[1], forwarded, rounds[1]);

  // Put each record in its place (see the banner).
  std::vector<std::size_t> first(static_cast<std::size_t>(ranks) + 1, 0);
  std::size_t total = 0;
  for (const EnvelopedRecords& through : second_round) {
    for (std::size_t i = 0; i < through.size(); ++i) {
      const Envelope e = through.envelope(i);
      if (e.destination != me || e.source < 0 || e.source >= ranks)
        throw Error(ErrorCode::internal, "gsr: transfer: two-round delivered a record from rank " +
                                             std::to_string(e.source) + " for rank " + std::to_string(e.destination) +
                                             " to rank " + std::to_string(me));
      ++first[static_cast<std::size_t>(e.source) + 1];
    }
    total += through.size();
  }
  for (int s = 0; s < ranks; ++s) first[s + 1] += first[s];
  std::byte* room = in.room(total, w);
  in.sources.assign(total, 0);
  for (int b = 0; b < ranks; ++b) {
    const EnvelopedRecords& through = second_round[b];
    int run_source = -1;
    std::size_t t = 0;  // position within the current run of one source
    for (std::size_t i = 0; i < through.size(); ++i) {
      const int s = through.envelope(i).source;
      t = s == run_source ? t + 1 : 0;
      run_source = s;
      const std::size_t k = modulo(static_cast<long long>(b) - s - me, ranks) + t * static_cast<std::size_t>(ranks);
      const std::size_t at = first[s] + k;
      if (at >= first[s + 1])
        throw Error(ErrorCode::internal, "gsr: transfer: two-round record " + std::to_string(k) + " from rank " +
                                             std::to_string(s) + " is past the " +
                                             std::to_string(first[s + 1] - first[s]) + " records it sent here");
      if (w > 0) std::memcpy(room + at * w, through.record(i), w);
      in.sources[at] = s;
    }
  }
  return rounds;
}

}  // namespace gsr::detail
