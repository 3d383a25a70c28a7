// plan/plan.cpp — see plan.hpp.
#include "plan/plan.hpp"

#include <algorithm>
#include <tuple>

namespace gsr::detail {

std::size_t Plan::bytes() const noexcept {
  return all_entries.bytes() + unflagged_entries.bytes() + fixed_entries.capacity() * sizeof(index_t) +
         fixed_runs.capacity() * sizeof(FixedRun) + shared_runs.capacity() * sizeof(SharedRun) +
         (shared_fixed_rows.capacity() + shared_fixed_entries.capacity() + shared_other_rows.capacity()) *
             sizeof(index_t);
}

std::size_t Plan::call_bytes() const noexcept {
  auto map_bytes = [](const EntryMap& map) {
    return map.rows() == 0 ? 0 : (map.offsets.size() + map.items.size()) * sizeof(index_t);
  };
  // A flagged plan's calls gather from one map and scatter to the other, for every group.
  if (any_flagged) return map_bytes(all_entries) + map_bytes(unflagged_entries);
  std::size_t bytes =
      shared_runs.size() * sizeof(SharedRun) + fixed_runs.size() * sizeof(FixedRun) +
      (shared_fixed_rows.size() + shared_fixed_entries.size() + shared_other_rows.size() + fixed_entries.size()) *
          sizeof(index_t);
  // all_entries holds every group, but the calls read only the rows no run lists: shared
  // groups of more than max_fixed_group local entries, then the large local-only groups.
  // Each row's items and its two offsets, an offset shared by neighbouring rows once.
  std::size_t next_offset = all_entries.rows() + 1;  // the offset the previous row ended at
  auto add_row = [&](std::size_t r) {
    bytes += (all_entries.row(r).size() + (r == next_offset ? 1 : 2)) * sizeof(index_t);
    next_offset = r + 1;
  };
  for (const index_t r : shared_other_rows) add_row(r);
  for (std::size_t r = shared_groups; r < all_entries.rows(); ++r) add_row(r);
  return bytes;
}

std::size_t Plan::local_groups() const noexcept {
  std::size_t count = all_entries.rows() - shared_groups;
  for (const FixedRun& run : fixed_runs) count += run.groups;
  return count;
}

std::size_t Plan::active_entries() const noexcept { return all_entries.items.size() + fixed_entries.size(); }

namespace {

// Shared groups take the first rows in shared-id order; local-only ones that need work
// follow in id order.
struct GroupRuns {
  std::vector<IdRun> shared, local;
};

GroupRuns runs_needing_work(std::span<const std::int64_t> ids, std::span<const index_t> order,
                            const std::vector<std::int64_t>& shared_ids) {
  GroupRuns runs;
  runs.shared.resize(shared_ids.size(), IdRun{0, 0, 0, false, false});
  for_each_id_run(ids, order, [&](const IdRun& run) {
    const auto it = std::lower_bound(shared_ids.begin(), shared_ids.end(), run.id);
    if (it != shared_ids.end() && *it == run.id)
      runs.shared[static_cast<std::size_t>(it - shared_ids.begin())] = run;
    else if (run.end - run.begin > 1 || run.any_flagged)
      runs.local.push_back(run);
  });
  return runs;
}

// Small local-only groups, in (tile of their first entry, size, first entry) order; entries
// within a group stay in index order, so the first is the smallest.
void add_fixed_groups(Plan& plan, std::span<const index_t> order, std::vector<IdRun>& small) {
  auto key = [&](const IdRun& run) {
    const std::size_t first = order[run.begin];
    return std::tuple(first / Plan::fixed_tile_entries, run.end - run.begin, first);
  };
  std::sort(small.begin(), small.end(), [&](const IdRun& a, const IdRun& b) { return key(a) < key(b); });
  std::size_t entries = 0;
  for (const IdRun& run : small) entries += run.end - run.begin;
  plan.fixed_entries.reserve(entries);  // and no more: the kernel's look-ahead stops at its end
  for (const IdRun& run : small) {
    const std::size_t size = run.end - run.begin;
    if (plan.fixed_runs.empty() || plan.fixed_runs.back().size != size)
      plan.fixed_runs.push_back(Plan::FixedRun{size, plan.fixed_entries.size(), 0});
    ++plan.fixed_runs.back().groups;
    for (std::size_t j = run.begin; j < run.end; ++j) plan.fixed_entries.push_back(order[j]);
  }
}

// The shared groups by size (Plan::shared_runs), when nothing is flagged.
void add_shared_by_size(Plan& plan) {
  std::vector<index_t> rows;
  for (std::size_t r = 0; r < plan.shared_groups; ++r) {
    const std::size_t size = plan.all_entries.row(r).size();
    if (size >= 1 && size <= Plan::max_fixed_group)
      rows.push_back(static_cast<index_t>(r));
    else
      plan.shared_other_rows.push_back(static_cast<index_t>(r));
  }
  auto key = [&](index_t r) { return std::pair(plan.all_entries.row(r).size(), plan.all_entries.row(r)[0]); };
  std::sort(rows.begin(), rows.end(), [&](index_t a, index_t b) { return key(a) < key(b); });
  for (const index_t r : rows) {
    const auto entries = plan.all_entries.row(r);
    if (plan.shared_runs.empty() || plan.shared_runs.back().size != entries.size())
      plan.shared_runs.push_back(
          Plan::SharedRun{entries.size(), plan.shared_fixed_entries.size(), plan.shared_fixed_rows.size(), 0});
    ++plan.shared_runs.back().groups;
    plan.shared_fixed_rows.push_back(r);
    plan.shared_fixed_entries.insert(plan.shared_fixed_entries.end(), entries.begin(), entries.end());
  }
}

}  // namespace

Plan build_plan(std::span<const std::int64_t> ids, std::span<const index_t> order, const Topology& topo, int rank,
                int ranks) {
  Plan plan;
  plan.rank = rank;
  plan.ranks = ranks;
  plan.n = ids.size();
  plan.global_shared_ids = topo.global_shared_ids;
  plan.shared_groups = topo.shared_ids.size();
  plan.any_flagged = std::any_of(ids.begin(), ids.end(), [](std::int64_t id) { return id < 0; });

  const GroupRuns runs = runs_needing_work(ids, order, topo.shared_ids);
  auto add_group = [&](const IdRun& run) {
    for (std::size_t j = run.begin; j < run.end; ++j) {
      plan.all_entries.items.push_back(order[j]);
      if (plan.any_flagged && ids[order[j]] > 0) plan.unflagged_entries.items.push_back(order[j]);
    }
    plan.all_entries.offsets.push_back(static_cast<index_t>(plan.all_entries.items.size()));
    if (plan.any_flagged)
      plan.unflagged_entries.offsets.push_back(static_cast<index_t>(plan.unflagged_entries.items.size()));
  };
  for (const IdRun& run : runs.shared) add_group(run);

  std::vector<IdRun> small;
  for (const IdRun& run : runs.local) {
    if (plan.any_flagged || run.end - run.begin > Plan::max_fixed_group)
      add_group(run);
    else
      small.push_back(run);
  }
  add_fixed_groups(plan, order, small);
  if (!plan.any_flagged) add_shared_by_size(plan);
  plan.all_entries.items.shrink_to_fit();
  plan.unflagged_entries.items.shrink_to_fit();
  plan.fixed_runs.shrink_to_fit();
  for (std::vector<index_t>* v : {&plan.shared_fixed_rows, &plan.shared_fixed_entries, &plan.shared_other_rows})
    v->shrink_to_fit();
  return plan;
}

}  // namespace gsr::detail
