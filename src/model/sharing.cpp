// model/sharing.cpp — see sharing.hpp.
#include "model/sharing.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace gsr::model {

namespace {

/// (|id|, rank) pairs, sorted and without repeats, turned into classes per rank.
Sharing classes_from_pairs(std::vector<std::pair<std::uint64_t, int>>& pairs, int ranks) {
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::vector<std::map<std::vector<int>, std::uint64_t>> classes(static_cast<std::size_t>(ranks));
  std::vector<int> holders;
  for (std::size_t begin = 0, end = 0; begin < pairs.size(); begin = end) {
    holders.clear();
    for (end = begin; end < pairs.size() && pairs[end].first == pairs[begin].first; ++end)
      holders.push_back(pairs[end].second);
    if (holders.size() < 2) continue;
    for (int r : holders) ++classes[static_cast<std::size_t>(r)][holders];
  }
  Sharing sharing;
  sharing.ranks = ranks;
  sharing.rank.resize(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    for (auto& [set, count] : classes[static_cast<std::size_t>(r)])
      sharing.rank[static_cast<std::size_t>(r)].classes.push_back(RowClass{set, count});
  finish_sharing(sharing);
  return sharing;
}

std::uint64_t magnitude(std::int64_t id) {
  return id < 0 ? static_cast<std::uint64_t>(0) - static_cast<std::uint64_t>(id) : static_cast<std::uint64_t>(id);
}

}  // namespace

void finish_sharing(Sharing& sharing) {
  sharing.global_shared_ids = 0;
  sharing.holder_pairs = 0;
  // Each shared id is counted once per holder; summing 1/|holders| per holder would need
  // fractions, so count the ids whose lowest holder is this rank instead.
  for (int r = 0; r < sharing.ranks; ++r) {
    VirtualRank& vr = sharing.rank[static_cast<std::size_t>(r)];
    vr.shared_groups = 0;
    for (const RowClass& c : vr.classes) {
      vr.shared_groups += c.count;
      if (c.holders.front() == r) sharing.global_shared_ids += c.count;
    }
    sharing.holder_pairs += vr.shared_groups;
  }
}

Sharing sharing_from_elements(std::span<const std::int64_t> ids, int nodes_per_element,
                              std::span<const std::int32_t> owner, int ranks) {
  std::vector<std::pair<std::uint64_t, int>> pairs;
  pairs.reserve(ids.size());
  const auto npe = static_cast<std::size_t>(nodes_per_element);
  for (std::size_t e = 0; e < owner.size(); ++e)
    for (std::size_t k = 0; k < npe; ++k)
      if (const std::int64_t id = ids[e * npe + k]; id != 0) pairs.emplace_back(magnitude(id), owner[e]);
  return classes_from_pairs(pairs, ranks);
}

Sharing sharing_from_rank_ids(const std::vector<std::vector<std::int64_t>>& ids_per_rank) {
  std::vector<std::pair<std::uint64_t, int>> pairs;
  for (std::size_t r = 0; r < ids_per_rank.size(); ++r)
    for (std::int64_t id : ids_per_rank[r])
      if (id != 0) pairs.emplace_back(magnitude(id), static_cast<int>(r));
  return classes_from_pairs(pairs, static_cast<int>(ids_per_rank.size()));
}

}  // namespace gsr::model
