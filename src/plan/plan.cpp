// plan/plan.cpp — see plan.hpp.
#include "plan/plan.hpp"

#include <algorithm>
#include <numeric>

namespace gsr::detail {

namespace {

std::int64_t abs_id(std::int64_t id) noexcept { return id < 0 ? -id : id; }

// Position of `id` in the ascending `shared_ids`, or npos.
std::size_t find_shared(const std::vector<std::int64_t>& shared_ids, std::int64_t id) {
  auto it = std::lower_bound(shared_ids.begin(), shared_ids.end(), id);
  return (it != shared_ids.end() && *it == id) ? static_cast<std::size_t>(it - shared_ids.begin())
                                               : static_cast<std::size_t>(-1);
}

}  // namespace

std::size_t Plan::bytes() const noexcept {
  std::size_t fixed = 0;
  for (const auto& f : fixed_groups) fixed += f.entries.capacity() * sizeof(index_t);
  return all_entries.bytes() + unflagged_entries.bytes() + holders.bytes() + fixed;
}

std::size_t Plan::local_groups() const noexcept {
  std::size_t count = all_entries.rows() - shared_groups;
  for (const auto& f : fixed_groups) count += f.groups();
  return count;
}

std::size_t Plan::active_entries() const noexcept {
  std::size_t count = all_entries.items.size();
  for (const auto& f : fixed_groups) count += f.entries.size();
  return count;
}

int unique_owner(std::int64_t id, std::span<const int> holder_ranks,
                 std::span<const unsigned char> holder_unflagged) {
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
  for (std::size_t begin = 0; begin < order.size();) {
    const std::int64_t id = abs_id(ids[order[begin]]);
    std::size_t end = begin + 1;
    while (end < order.size() && abs_id(ids[order[end]]) == id) ++end;

    bool owner = true;
    const std::size_t s = find_shared(topo.shared_ids, id);
    if (s != static_cast<std::size_t>(-1)) {
      const std::size_t b = topo.holder_offsets[s], e = topo.holder_offsets[s + 1];
      owner = unique_owner(id, {topo.holder_ranks.data() + b, e - b},
                           {topo.holder_unflagged.data() + b, e - b}) == rank;
    }
    // The kept entry: the first unflagged one in index order, else the first.
    std::size_t keep = end;
    if (owner) {
      keep = begin;
      for (std::size_t j = begin; j < end; ++j)
        if (ids[order[j]] > 0) { keep = j; break; }
    }
    for (std::size_t j = begin; j < end; ++j) ids[order[j]] = j == keep ? id : -id;
    begin = end;
  }
}

Plan build_plan(std::span<const std::int64_t> ids, std::span<const index_t> order, const Topology& topo,
                int rank, int ranks) {
  Plan plan;
  plan.rank = rank;
  plan.ranks = ranks;
  plan.n = ids.size();
  plan.global_shared_ids = topo.global_shared_ids;
  plan.shared_groups = topo.shared_ids.size();


  // Shared groups take the first rows in shared-id order; local-only ones follow.
  struct Span { std::size_t begin, end; };
  std::vector<Span> shared_spans(plan.shared_groups, Span{0, 0});
  std::vector<Span> local_spans;
  for (std::size_t begin = 0; begin < order.size();) {
    const std::int64_t id = abs_id(ids[order[begin]]);
    std::size_t end = begin + 1;
    bool flagged = ids[order[begin]] < 0;
    while (end < order.size() && abs_id(ids[order[end]]) == id) {
      flagged = flagged || ids[order[end]] < 0;
      ++end;
    }
    const std::size_t s = find_shared(topo.shared_ids, id);
    if (s != static_cast<std::size_t>(-1)) {
      shared_spans[s] = {begin, end};
    } else if (end - begin > 1 || flagged) {
      local_spans.push_back({begin, end});
    }
    begin = end;
  }

  for (std::size_t i = 0; i < ids.size() && !plan.any_flagged; ++i) plan.any_flagged = ids[i] < 0;
  auto add_group = [&](Span sp) {
    for (std::size_t j = sp.begin; j < sp.end; ++j) {
      plan.all_entries.items.push_back(order[j]);
      if (plan.any_flagged && ids[order[j]] > 0) plan.unflagged_entries.items.push_back(order[j]);
    }
    plan.all_entries.offsets.push_back(static_cast<index_t>(plan.all_entries.items.size()));
    if (plan.any_flagged)
      plan.unflagged_entries.offsets.push_back(static_cast<index_t>(plan.unflagged_entries.items.size()));
  };
  for (Span sp : shared_spans) add_group(sp);
  std::vector<Plan::FixedGroups> fixed(Plan::max_fixed_group + 1);
  for (Span sp : local_spans) {
    const std::size_t size = sp.end - sp.begin;
    if (plan.any_flagged || size > Plan::max_fixed_group) {
      add_group(sp);
      continue;
    }
    fixed[size].size = size;
    for (std::size_t j = sp.begin; j < sp.end; ++j) fixed[size].entries.push_back(order[j]);
  }
  for (auto& f : fixed)
    if (!f.entries.empty()) plan.fixed_groups.push_back(std::move(f));
  plan.all_entries.items.shrink_to_fit();
  plan.unflagged_entries.items.shrink_to_fit();

  plan.holders.items = topo.holder_ranks;
  plan.holders.offsets = topo.holder_offsets;
  return plan;
}

}  // namespace gsr::detail
