// model/sharing.hpp — who shares what, for P virtual ranks held in one process: the input of
// the plan simulation (model/simulate.hpp). A rank's shared groups are grouped into row
// classes by their holder set: every statistic of every exchange method depends only on
// which ranks hold each shared id, so rows with the same holders behave identically and one
// class stands for all of them. A box partitioned into blocks has at most 3^dim - 1 classes
// per rank, which is what lets the simulation cover 10^5 ranks exactly, without sampling.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gsr::model {

/// `count` shared groups of one rank, each held by exactly `holders` (ascending, the rank
/// itself included, at least two ranks).
struct RowClass {
  std::vector<int> holders;
  std::uint64_t count = 0;
};

struct VirtualRank {
  std::vector<RowClass> classes;    // distinct holder sets, ascending (lexicographic)
  std::uint64_t shared_groups = 0;  // sum of the classes' counts (Stats::shared_groups)
};

struct Sharing {
  int ranks = 0;
  std::vector<VirtualRank> rank;        // [ranks]
  std::uint64_t global_shared_ids = 0;  // distinct ids held by more than one rank
  std::uint64_t holder_pairs = 0;       // (shared id, holder) pairs: allreduce's dense slots
};

/// From explicit ids: element e (nodes_per_element ids from ids[e * nodes_per_element])
/// belongs to rank owner[e]. Ids are compared by magnitude and 0 takes no part, as in
/// gsr::Handle. Memory: 16 bytes per nonzero id.
Sharing sharing_from_elements(std::span<const std::int64_t> ids, int nodes_per_element,
                              std::span<const std::int32_t> owner, int ranks);

/// From each rank's ids directly (tests, small problems).
Sharing sharing_from_rank_ids(const std::vector<std::vector<std::int64_t>>& ids_per_rank);

/// Adds up a rank's classes into Sharing's totals; used by the builders.
void finish_sharing(Sharing& sharing);

}  // namespace gsr::model
