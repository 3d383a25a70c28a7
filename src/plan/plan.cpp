// plan/plan.cpp — see plan.hpp.
#include "plan/plan.hpp"

#include <algorithm>

namespace gsr::detail {

std::size_t Plan::bytes() const noexcept {
  std::size_t fixed = 0;
  for (const auto& f : fixed_groups) fixed += f.entries.capacity() * sizeof(index_t);
  return all_entries.bytes() + unflagged_entries.bytes() + fixed;
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
    if (it != shared_ids.end() && *it == run.id) runs.shared[static_cast<std::size_t>(it - shared_ids.begin())] = run;
    else if (run.end - run.begin > 1 || run.any_flagged) runs.local.push_back(run);
  });
  return runs;
}

}  // namespace

Plan build_plan(std::span<const std::int64_t> ids, std::span<const index_t> order, const Topology& topo,
                int rank, int ranks) {
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

  std::vector<Plan::FixedGroups> fixed(Plan::max_fixed_group + 1);
  for (const IdRun& run : runs.local) {
    const std::size_t size = run.end - run.begin;
    if (plan.any_flagged || size > Plan::max_fixed_group) {
      add_group(run);
      continue;
    }
    fixed[size].size = size;
    for (std::size_t j = run.begin; j < run.end; ++j) fixed[size].entries.push_back(order[j]);
  }
  for (auto& f : fixed)
    if (!f.entries.empty()) plan.fixed_groups.push_back(std::move(f));
  plan.all_entries.items.shrink_to_fit();
  plan.unflagged_entries.items.shrink_to_fit();
  return plan;
}

}  // namespace gsr::detail
