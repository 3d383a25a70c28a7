// local/kernels.hpp — the per-call arithmetic, type-erased once: for each (Domain, Op) a
// table of gather / reduce / fold-and-scatter functions instantiated from templates over
// the value type, the op and the data layout (one value, k interleaved, or k separate
// arrays).
#pragma once

#include "plan/plan.hpp"

#include <gsr/types.hpp>

#include <cstddef>
#include <span>

namespace gsr::detail {

/// The user's data for one call.
struct DataRef {
  void* base = nullptr;           // vec layout: u[i*k + c]
  void* const* arrays = nullptr;  // many layout: arrays[c][i]
  std::size_t k = 1;
  bool many = false;
};

/// For each result row r: fold, in CSR order, the source rows; source j is the row
/// `index[j]` of the block `slot[j]` (blocks are given per call as base pointers).
struct CombineMap {
  std::vector<std::size_t> offsets{0};
  std::vector<std::uint32_t> slot;
  std::vector<index_t> index;
  /// Every row r folds exactly two sources, row r of block pair[0] then row r of block
  /// pair[1] (pairwise or the crystal router at P = 2): the kernels then skip the map.
  /// Set by find_pairs, which a method calls once its map is built.
  bool paired = false;
  std::uint32_t pair[2] = {0, 0};
  void find_pairs() noexcept;
  std::size_t bytes() const noexcept {
    return offsets.capacity() * sizeof(std::size_t) + slot.capacity() * sizeof(std::uint32_t) +
           index.capacity() * sizeof(index_t);
  }
  /// What one call's fold reads of the map (Stats::call_index_bytes): nothing when paired.
  std::size_t call_bytes() const noexcept {
    if (paired || slot.empty()) return 0;
    return offsets.size() * sizeof(std::size_t) + slot.size() * sizeof(std::uint32_t) + index.size() * sizeof(index_t);
  }
};

struct Kernels {
  std::size_t value_size;
  /// rows[g - g0] = fold of the entries `contrib` lists for group g (identity if none).
  void (*gather)(const DataRef& u, const EntryMap& contrib, std::size_t g0, std::size_t g1, void* rows);
  /// gather then scatter for groups [g0, g1), without a buffer.
  void (*reduce_local)(const DataRef& u, const EntryMap& contrib, const EntryMap& receive, std::size_t g0,
                       std::size_t g1);
  /// gather then scatter for `groups` groups of `size` entries each, stored contiguously
  /// (every entry contributes and receives). With `prefetch_end` (the end of the array
  /// `entries` lies in, Plan::fixed_entries), asks for the lines of the entries ahead, across
  /// runs; nullptr: no hints (HandleState::prefetch_from_bytes says when).
  void (*reduce_fixed)(const DataRef& u, std::size_t size, const index_t* entries, std::size_t groups,
                       const index_t* prefetch_end);
  /// Each entry `receive` lists for group r in [g0, g1) gets the fold, in CSR order, of
  /// `map` row r's source rows, in one pass without a buffer for the folds.
  void (*combine_scatter)(const DataRef& u, const EntryMap& receive, std::size_t g0, std::size_t g1,
                          const std::byte* const* blocks, const CombineMap& map);
  /// gather for `groups` groups of `size` (1..Plan::max_fixed_group) entries each, stored
  /// contiguously in `entries`, with their rows in `rows`: partials row rows[i] = the fold.
  void (*gather_sized)(const DataRef& u, std::size_t size, const index_t* entries, const index_t* rows,
                       std::size_t groups, void* partials);
  /// combine_scatter for such groups: each of group i's entries gets the fold of `map`
  /// row rows[i].
  void (*combine_scatter_sized)(const DataRef& u, std::size_t size, const index_t* entries, const index_t* rows,
                                std::size_t groups, const std::byte* const* blocks, const CombineMap& map);
};

/// The kernels for (dom, op); nullptr when op does not apply to dom (bpr on floating data).
const Kernels* find_kernels(Domain dom, Op op) noexcept;

bool valid_domain(int code) noexcept;
bool valid_op(int code) noexcept;

}  // namespace gsr::detail
