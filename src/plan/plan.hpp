// plan/plan.hpp — the immutable local half of setup's result: which local entries form
// each group that needs work, shared groups first. The topology is discarded once this
// and the exchange method's own plan are built; nothing changes a Plan after build_plan.
#pragma once

#include "setup/csr.hpp"
#include "setup/discovery.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gsr::detail {

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
  // instead, group after group: their kernel needs no offsets, and these small groups
  // (faces, edges, corners of elements) are most of the per-call work. They are visited
  // tile by tile of u (by their first entry), and within a tile by size, so one pass over
  // u does them all with the lines of a tile still in cache.
  static constexpr std::size_t max_fixed_group = 8;
  static constexpr std::size_t fixed_tile_entries = 4096;
  struct FixedRun {
    std::size_t size;    // entries per group
    std::size_t first;   // offset of the first group's entries in fixed_entries
    std::size_t groups;  // consecutive groups of this size
  };
  std::vector<index_t> fixed_entries;
  std::vector<FixedRun> fixed_runs;

  // When nothing is flagged (so every entry contributes and receives), the shared groups
  // are also listed by their number of local entries (1..max_fixed_group; those with more
  // in shared_other_rows), in (size, first entry) order, so the per-call gather and the
  // fold-and-scatter of the combined values run without a branch on each group's size.
  // When something is flagged these lists are empty and the calls use all_entries and
  // unflagged_entries.
  struct SharedRun {
    std::size_t size;       // local entries per group
    std::size_t first;      // offset of the first group's entries in shared_fixed_entries (index order)
    std::size_t first_row;  // offset of the first group's row (shared group index) in shared_fixed_rows
    std::size_t groups;
  };
  std::vector<SharedRun> shared_runs;
  std::vector<index_t> shared_fixed_rows, shared_fixed_entries, shared_other_rows;

  std::int64_t global_shared_ids = 0;  // distinct ids held by more than one rank, all ranks

  std::size_t local_groups() const noexcept;
  std::size_t active_entries() const noexcept;
  std::size_t bytes() const noexcept;
  /// Bytes of these arrays that one call reads (Stats::call_index_bytes): nothing flagged,
  /// the runs and their entries, and the rows of all_entries that no run lists; flagged,
  /// both maps whole.
  std::size_t call_bytes() const noexcept;
};

/// Builds the plan from the (possibly uniquified) ids, their order (entries_by_id) and
/// the topology.
Plan build_plan(std::span<const std::int64_t> ids, std::span<const index_t> order, const Topology& topo, int rank,
                int ranks);

}  // namespace gsr::detail
