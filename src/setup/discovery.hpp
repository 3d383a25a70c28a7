// setup/discovery.hpp — who shares which id. Each distinct |id| has a home rank (a hash of
// the id); every holder tells the home, the home tells every holder of a shared id the full
// list of holders. No rank ever sees more than the ids it holds plus those homed on it.
#pragma once

#include "setup/csr.hpp"
#include "setup/ids.hpp"

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

namespace gsr::detail {

/// Row s: the ranks holding shared group s (shared_ids[s]), ascending, this rank included.
using Holders = Csr<int>;

struct Topology {
  /// Distinct |id| this rank holds that some other rank also holds, ascending.
  std::vector<std::int64_t> shared_ids;
  Holders holders;
  /// Parallel to holders.items: does that rank hold the id with an unflagged (positive) entry.
  std::vector<unsigned char> holder_unflagged;
  /// Number of distinct ids held by more than one rank, over all ranks.
  std::int64_t global_shared_ids = 0;
};

/// Collective. `ids` are this rank's ids (0 = not taking part, sign = flag); `order` is
/// entries_by_id(ids); `chunk_bytes` as mpi/messages.hpp says. Every wait is bounded by
/// `timeout` (GSR_TIMEOUT; 0: no limit): Error(timeout) if a rank never comes.
Topology discover(std::span<const std::int64_t> ids, std::span<const index_t> order, MPI_Comm comm,
                  std::size_t chunk_bytes, double timeout);

/// The rank that collects the holders of |id| (also used by tests to reason about load).
int home_rank(std::int64_t abs_id, int ranks) noexcept;

}  // namespace gsr::detail
