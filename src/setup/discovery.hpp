// setup/discovery.hpp — who shares which id. Each distinct |id| has a home rank (a hash of
// the id); every holder tells the home, the home tells every holder of a shared id the full
// list of holders. No rank ever sees more than the ids it holds plus those homed on it.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

namespace gsr::detail {

using index_t = std::uint32_t;  // local entry index; setup rejects n >= 2^32

/// Throws invalid_argument for ids setup cannot take: NULL with n > 0, n >= 2^32 (entry
/// indices are 32-bit), or -2^63 (no |id|). Rank-local; callers agree on the outcome.
void check_ids(std::span<const std::int64_t> ids);

/// Indices of the entries with a non-zero id, sorted by |id|, index order within one |id|.
/// Setup sorts once and every later step (discovery, unique, plan) walks this order.
std::vector<index_t> entries_by_id(std::span<const std::int64_t> ids);

struct Topology {
  /// Distinct |id| this rank holds that some other rank also holds, ascending.
  std::vector<std::int64_t> shared_ids;
  /// CSR: holders of shared_ids[s] are holder_ranks[holder_offsets[s] .. holder_offsets[s+1]),
  /// ascending, this rank included; holder_unflagged says whether that rank holds the id
  /// with at least one unflagged (positive) entry.
  std::vector<std::size_t> holder_offsets{0};
  std::vector<int> holder_ranks;
  std::vector<unsigned char> holder_unflagged;
  /// Number of distinct ids held by more than one rank, over all ranks.
  std::int64_t global_shared_ids = 0;
};

/// Collective. `ids` are this rank's ids (0 = not taking part, sign = flag); `order` is
/// entries_by_id(ids).
Topology discover(std::span<const std::int64_t> ids, std::span<const index_t> order, MPI_Comm comm);

/// The rank that collects the holders of |id| (also used by tests to reason about load).
int home_rank(std::int64_t abs_id, int ranks) noexcept;

}  // namespace gsr::detail
