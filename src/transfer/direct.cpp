// transfer/direct.cpp — the direct method: this rank's records sorted by destination (a
// stable counting sort), one message per destination rank, moved by the sparse exchange
// (NBX, sparse_exchange.hpp). Records for this rank itself are copied, not sent. No envelope
// travels: a message comes from one source and holds only records for its receiver.
#include "transfer/methods.hpp"
#include "transfer/sparse_exchange.hpp"

#include "mpi/checked.hpp"
#include "mpi/keeper.hpp"
#include "mpi/watch.hpp"

#include <cstring>
#include <memory>

namespace gsr::detail {

namespace {
constexpr int direct_tag = 41;
}

std::vector<TransferRoundStats> transfer_direct(Watch& watch, const Outbox& out, const Inbox& in) {
  const MPI_Comm comm = watch.comm();
  const int me = comm_rank(comm), ranks = comm_size(comm);
  const std::size_t w = out.record_bytes;

  // first[j]: where destination j's records start in `sorted`.
  std::vector<std::size_t> first(static_cast<std::size_t>(ranks) + 1, 0);
  for (std::size_t i = 0; i < out.count; ++i) ++first[static_cast<std::size_t>(out.destinations[i]) + 1];
  for (int j = 0; j < ranks; ++j) first[j + 1] += first[j];
  // Shared, so that sends abandoned when another rank fails keep it (mpi/watch.hpp).
  const auto kept = std::make_shared<std::vector<std::byte>>(out.count * w);
  std::vector<std::byte>& sorted = *kept;
  {
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (std::size_t i = 0; i < out.count; ++i)
      if (w > 0) std::memcpy(sorted.data() + next[out.destinations[i]]++ * w, out.records + i * w, w);
  }

  TransferRoundStats round;
  std::vector<OutgoingView> outgoing;
  for (int j = 0; j < ranks; ++j) {
    const std::size_t n = first[j + 1] - first[j];
    if (j == me || n == 0) continue;
    outgoing.push_back(OutgoingView{j, sorted.data() + first[j] * w, n * w});
    count_sent(round, n, n * w);
  }
  std::vector<ByteMessage> received;
  try {
    received = sparse_exchange_views(comm, direct_tag, outgoing, watch.chunk_bytes(), &watch);
  } catch (...) {
    try {
      keep_until_exit(std::shared_ptr<void>(kept));
    } catch (...) {
    }
    throw;
  }

  // Deliver in source order, this rank's own records in their place among the sources.
  const std::size_t own = first[me + 1] - first[me];
  std::size_t total = own;
  std::vector<std::size_t> counts(received.size());
  for (std::size_t m = 0; m < received.size(); ++m) {
    counts[m] = whole_units(received[m].bytes.size(), w, "a direct message");
    count_received(round, counts[m], received[m].bytes.size());
    total += counts[m];
  }
  std::byte* room = in.room(total, w);
  in.sources.clear();
  in.sources.reserve(total);
  std::size_t at = 0;
  auto put = [&](int source, const std::byte* data, std::size_t n) {
    if (n == 0) return;
    if (w > 0) std::memcpy(room + at * w, data, n * w);
    in.sources.insert(in.sources.end(), n, source);
    at += n;
  };
  bool own_done = false;
  for (std::size_t m = 0; m < received.size(); ++m) {
    if (!own_done && received[m].rank > me) {
      put(me, sorted.data() + first[me] * w, own);
      own_done = true;
    }
    put(received[m].rank, received[m].bytes.data(), counts[m]);
  }
  if (!own_done) put(me, sorted.data() + first[me] * w, own);
  return {round};
}

}  // namespace gsr::detail
