// plan/plan.hpp — the immutable result of setup: which local entries form each group that
// needs work, who else holds each shared group, and the owner rule of gs_unique. The
// topology is discarded once this is built; exchange methods derive their own plans from it.
#pragma once

#include "setup/discovery.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gsr::detail {


/// Compressed rows: row r is items[offsets[r] .. offsets[r+1]).
template <class T, class Offset = std::size_t>
struct Csr {
  std::vector<Offset> offsets{0};
  std::vector<T> items;
  std::size_t rows() const noexcept { return offsets.size() - 1; }
  std::span<const T> row(std::size_t r) const noexcept {
    return {items.data() + offsets[r], offsets[r + 1] - offsets[r]};
  }
  std::size_t bytes() const noexcept {
    return offsets.capacity() * sizeof(Offset) + items.capacity() * sizeof(T);
  }
};

/// Local entries per group. 32-bit offsets: the per-call path streams these maps, so
/// their size is most of its memory traffic (n < 2^32 is checked at setup).
using EntryMap = Csr<index_t, index_t>;

struct Plan {
  int rank = 0;
  int ranks = 1;
  std::size_t n = 0;  // local entries

  // Groups that need work, shared ones first (ascending id; row = shared group index),
  // then local-only ones. A local-only group needs work when it has two or more entries
  // or a flagged one; a lone unflagged entry is never touched.
  std::size_t shared_groups = 0;
  EntryMap all_entries;        // every entry of the group, index order
  EntryMap unflagged_entries;  // its unflagged entries, index order
  bool any_flagged = false;    // false: the two maps are equal and only all_entries is kept

  // When nothing is flagged, local-only groups of 2..max_fixed_group entries live here
  // instead, group after group at a fixed stride: their kernel needs no offsets, and these
  // small groups (faces, edges, corners of elements) are most of the per-call work.
  static constexpr std::size_t max_fixed_group = 8;
  struct FixedGroups {
    std::size_t size = 0;
    std::vector<index_t> entries;  // groups() * size
    std::size_t groups() const noexcept { return entries.size() / size; }
  };
  std::vector<FixedGroups> fixed_groups;  // ascending size, none empty

  // For shared group s: the ranks holding it, ascending, this rank included.
  Csr<int> holders;
  std::int64_t global_shared_ids = 0;

  std::size_t local_groups() const noexcept;
  std::size_t active_entries() const noexcept;
  std::size_t bytes() const noexcept;
};

/// The owner rule of gs_unique: among the holders that hold the id unflagged (all holders
/// if none does), in ascending rank order, the (|id| mod count)-th.
int unique_owner(std::int64_t abs_id, std::span<const int> holder_ranks,
                 std::span<const unsigned char> holder_unflagged);

/// Applies gs_unique to `ids` in place, given this rank's topology; `order` is
/// entries_by_id(ids) (flipping signs does not change it).
void apply_unique(std::span<std::int64_t> ids, std::span<const index_t> order, const Topology& topo, int rank);

/// Builds the plan from the (possibly uniquified) ids, their order and the topology.
Plan build_plan(std::span<const std::int64_t> ids, std::span<const index_t> order, const Topology& topo,
                int rank, int ranks);

}  // namespace gsr::detail
