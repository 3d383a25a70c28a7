// setup/unique.hpp — the owner rule of gs_unique, in one place: which entry of each group
// stays positive when every other entry is flagged (docs/concepts.md, "unique").
#pragma once

#include "setup/discovery.hpp"

#include <cstdint>
#include <span>

namespace gsr::detail {

/// Among the holders that hold the id unflagged (all holders if none does), in ascending
/// rank order, the (|id| mod count)-th.
int unique_owner(std::int64_t abs_id, std::span<const int> holder_ranks,
                 std::span<const unsigned char> holder_unflagged);

/// Negates every entry of each group except one, in place: on the owning rank the first
/// unflagged entry in index order (the first if all are flagged) stays positive. `order`
/// is entries_by_id(ids), `topo` this rank's discovery result.
void apply_unique(std::span<std::int64_t> ids, std::span<const index_t> order, const Topology& topo, int rank);

}  // namespace gsr::detail
