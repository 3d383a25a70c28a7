// setup/unique.cpp — see unique.hpp.
#include "setup/unique.hpp"

#include <algorithm>

namespace gsr::detail {

int unique_owner(std::int64_t id, std::span<const int> holder_ranks, std::span<const unsigned char> holder_unflagged) {
  std::size_t unflagged = 0;
  for (unsigned char u : holder_unflagged) unflagged += u ? 1 : 0;
  const bool any = unflagged > 0;
  const std::size_t count = any ? unflagged : holder_ranks.size();
  std::size_t pick = static_cast<std::size_t>(abs_id(id)) % count;
  for (std::size_t h = 0; h < holder_ranks.size(); ++h) {
    if (any && !holder_unflagged[h]) continue;
    if (pick-- == 0) return holder_ranks[h];
  }
  return holder_ranks.front();  // unreachable: pick < count
}

void apply_unique(std::span<std::int64_t> ids, std::span<const index_t> order, const Topology& topo, int rank) {
  for_each_id_run(ids, order, [&](const IdRun& run) {
    bool owner = true;
    const auto shared = std::lower_bound(topo.shared_ids.begin(), topo.shared_ids.end(), run.id);
    if (shared != topo.shared_ids.end() && *shared == run.id) {
      const auto s = static_cast<std::size_t>(shared - topo.shared_ids.begin());
      const std::size_t b = topo.holders.offsets[s], e = topo.holders.offsets[s + 1];
      owner = unique_owner(run.id, topo.holders.row(s), {topo.holder_unflagged.data() + b, e - b}) == rank;
    }
    // The kept entry: the first unflagged one in index order, else the first.
    std::size_t keep = run.end;
    if (owner) {
      keep = run.begin;
      for (std::size_t j = run.begin; j < run.end; ++j)
        if (ids[order[j]] > 0) {
          keep = j;
          break;
        }
    }
    for (std::size_t j = run.begin; j < run.end; ++j) ids[order[j]] = j == keep ? run.id : -run.id;
  });
}

}  // namespace gsr::detail
