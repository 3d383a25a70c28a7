// setup/ids.hpp — the caller's ids as setup sees them: the checks they must pass, the one
// sort every later step walks, and the walk itself (runs of entries with the same |id|).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gsr::detail {

using index_t = std::uint32_t;  // local entry index; setup rejects n >= 2^32

inline std::int64_t abs_id(std::int64_t id) noexcept { return id < 0 ? -id : id; }

/// Throws invalid_argument for ids setup cannot take: NULL with n > 0, n >= 2^32 (entry
/// indices are 32-bit), or -2^63 (no |id|). Rank-local; callers agree on the outcome.
void check_ids(std::span<const std::int64_t> ids);

/// Indices of the entries with a non-zero id, sorted by |id|, index order within one |id|.
/// Setup sorts once and every later step (discovery, unique, plan) walks this order.
std::vector<index_t> entries_by_id(std::span<const std::int64_t> ids);

/// One |id| held on this rank: its entries are order[begin .. end), in index order.
struct IdRun {
  std::int64_t id;  // |id|
  std::size_t begin, end;
  bool any_unflagged;  // some entry holds the id with a positive sign
  bool any_flagged;
};

/// Calls visit(IdRun) for each distinct |id|, ascending; `order` is entries_by_id(ids)
/// (flipping signs does not change it).
template <class Visit>
void for_each_id_run(std::span<const std::int64_t> ids, std::span<const index_t> order, Visit&& visit) {
  for (std::size_t begin = 0; begin < order.size();) {
    IdRun run{abs_id(ids[order[begin]]), begin, begin, false, false};
    for (; run.end < order.size() && abs_id(ids[order[run.end]]) == run.id; ++run.end) {
      const bool flagged = ids[order[run.end]] < 0;
      run.any_flagged = run.any_flagged || flagged;
      run.any_unflagged = run.any_unflagged || !flagged;
    }
    begin = run.end;
    visit(run);
  }
}

}  // namespace gsr::detail
