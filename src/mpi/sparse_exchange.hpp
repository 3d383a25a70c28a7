// mpi/sparse_exchange.hpp — personalized exchange with a sparse, unknown-to-the-receiver
// set of partners, by non-blocking consensus (NBX), which works as follows.
// Each rank sends synchronous-mode messages to the ranks it has something for, receives
// whatever arrives, and joins a non-blocking barrier once its own sends have been matched;
// when the barrier completes every message has been received. No O(P) array of counts
// exists anywhere, so setup scales with the number of partners, not the number of ranks.
#pragma once

#include "mpi/checked.hpp"
#include "mpi/messages.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstring>
#include <map>
#include <type_traits>
#include <vector>

namespace gsr::detail {

struct ByteMessage {
  int rank = 0;                 // destination when sending, source when received
  std::vector<std::byte> bytes;
};

/// Collective over comm. Returns the received messages sorted by source rank.
std::vector<ByteMessage> sparse_exchange_bytes(MPI_Comm comm, int tag,
                                               const std::vector<ByteMessage>& outgoing);

/// Typed convenience: `outgoing` maps destination rank -> values.
template <class T>
std::map<int, std::vector<T>> sparse_exchange(MPI_Comm comm, int tag,
                                              const std::map<int, std::vector<T>>& outgoing) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::vector<ByteMessage> out;
  out.reserve(outgoing.size());
  for (const auto& [rank, values] : outgoing) {
    ByteMessage m{rank, std::vector<std::byte>(values.size() * sizeof(T))};
    if (!values.empty()) std::memcpy(m.bytes.data(), values.data(), m.bytes.size());
    out.push_back(std::move(m));
  }
  std::map<int, std::vector<T>> received;
  for (auto& m : sparse_exchange_bytes(comm, tag, out)) {
    std::vector<T> values(m.bytes.size() / sizeof(T));
    if (!values.empty()) std::memcpy(values.data(), m.bytes.data(), m.bytes.size());
    received.emplace(m.rank, std::move(values));
  }
  return received;
}

}  // namespace gsr::detail
