// tools/bench/primitives.hpp — gsr-bench --primitives: gsr::scatter and gsr::gather (the
// combining binomial tree) against MPI_Scatterv and MPI_Gatherv, for several block sizes,
// with the tree's measured rounds, messages and root bytes next to the alpha-beta formulas;
// and the record transfer's three methods against MPI_Alltoallv on an all-to-all of the
// same block sizes, with their stages, messages and bytes (docs/performance.md,
// "--primitives"). Before timing, every root's scatter/gather results are compared with
// MPI's on blocks of unequal sizes, some empty, and every transfer method's with MPI's.
#pragma once

#include "tools/bench/report.hpp"
#include "tools/bench/timing.hpp"

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace gsr::tools::bench {

struct PrimitivesResult {
  std::vector<Record> records;         // kind "primitive", the same on every rank
  bool equal_to_mpi = true;            // every scatter/gather comparison before the timing agreed
  bool transfers_equal_to_mpi = true;  // every transfer method delivered MPI_Alltoallv's result
};

/// Collective: times scatter and gather from root 0 with blocks of each size in
/// `block_bytes` on every rank.
PrimitivesResult measure_primitives(const std::vector<std::size_t>& block_bytes, const Rounds& rounds, MPI_Comm comm);

/// What the run measured, in words ("scatter/gather of blocks of 8, 1024 bytes per rank").
std::string primitives_problem(const std::vector<std::size_t>& block_bytes);

/// The terminal table of the primitive records.
std::string primitives_table(const nlohmann::ordered_json& metadata, const std::vector<Record>& records);

}  // namespace gsr::tools::bench
