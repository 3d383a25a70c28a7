// transfer/sparse_exchange.hpp — personalized exchange with a sparse, unknown-to-the-receiver
// set of partners, by non-blocking consensus (NBX): the record transfer's "direct" method
// and setup's discovery both move their messages with it. It works as follows.
// Each rank sends synchronous-mode messages to the ranks it has something for, receives
// whatever arrives, and joins a non-blocking barrier once its own sends have been matched;
// when the barrier completes every message has been received. No O(P) array of counts
// exists anywhere, so the cost scales with the number of partners, not the number of ranks.
// Messages of any length go through mpi/messages.hpp.
#pragma once

#include "mpi/checked.hpp"
#include "mpi/messages.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <type_traits>
#include <vector>

namespace gsr::detail {

/// One outgoing message, borrowed: `bytes` bytes at `data` for rank `rank`.
struct OutgoingView {
  int rank = 0;
  const std::byte* data = nullptr;
  std::size_t bytes = 0;
};

struct ByteMessage {
  int rank = 0;  // destination when sending, source when received
  std::vector<std::byte> bytes;
};

class Watch;

/// Collective over comm; `tag` must be used by nothing else in flight on comm. Sends each
/// outgoing message (at most one per destination, never to this rank) and returns the
/// received messages sorted by source rank; `chunk_bytes` as messages.hpp says. With a
/// `watch` (watch.hpp, on comm), its wait stops when another rank fails or GSR_TIMEOUT
/// passes with nothing arriving. Without one, `timeout` (GSR_TIMEOUT; 0: no limit) bounds the
/// wait the same way: Error(timeout) after that many seconds with nothing arriving (a rank
/// never came, or gave up on an earlier step), its sends and barrier left to the keeper with
/// `sent` (what owns the bytes the views point at: a rank that comes late may still receive
/// them).
std::vector<ByteMessage> sparse_exchange_views(MPI_Comm comm, int tag, const std::vector<OutgoingView>& outgoing,
                                               std::size_t chunk_bytes, Watch* watch = nullptr, double timeout = 0,
                                               std::shared_ptr<const void> sent = nullptr);

/// The same, for owned messages.
std::vector<ByteMessage> sparse_exchange_bytes(MPI_Comm comm, int tag, const std::vector<ByteMessage>& outgoing,
                                               std::size_t chunk_bytes);

/// Typed convenience: `outgoing` maps destination rank -> values (taken: after a timeout it
/// stays with the sends that read it).
template <class T>
std::map<int, std::vector<T>> sparse_exchange(MPI_Comm comm, int tag, std::map<int, std::vector<T>> outgoing,
                                              std::size_t chunk_bytes, double timeout) {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto sent = std::make_shared<const std::map<int, std::vector<T>>>(std::move(outgoing));
  std::vector<OutgoingView> out;
  out.reserve(sent->size());
  for (const auto& [rank, values] : *sent)
    out.push_back(OutgoingView{rank, reinterpret_cast<const std::byte*>(values.data()), values.size() * sizeof(T)});
  std::map<int, std::vector<T>> received;
  for (auto& m : sparse_exchange_views(comm, tag, out, chunk_bytes, nullptr, timeout, sent)) {
    std::vector<T> values(m.bytes.size() / sizeof(T));
    if (!values.empty()) std::memcpy(values.data(), m.bytes.data(), m.bytes.size());
    received.emplace(m.rank, std::move(values));
  }
  return received;
}

}  // namespace gsr::detail
