// tools/model/problem.hpp — what gsr-model simulates at each rank count: a generated box
// (weak scaling: a fixed block of elements per rank; strong: a fixed box) split into slabs
// or near-cubes, or a mesh file split into contiguous element ranges or by its own partition.
#pragma once

#include "model/box.hpp"
#include "model/sharing.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gsr::tools::model {

enum class Partition { slab, cube };

struct ProblemSpec {
  // Box (when mesh_path is empty).
  int dim = 3;
  int order = 7;
  std::array<bool, 3> periodic{};
  Partition partition = Partition::cube;
  std::int64_t elements_per_rank = 0;  // > 0: weak scaling
  std::vector<std::int64_t> elements;  // strong scaling: a total count, or one per axis
  // Mesh file.
  std::string mesh_path;
  bool mesh_own_partition = false;     // use /mesh/partition instead of contiguous ranges
  std::vector<std::int64_t> mesh_ids;  // the whole file's ids, element after element
  int mesh_nodes_per_element = 0;
  std::vector<std::int32_t> mesh_owner;  // /mesh/partition, when used
  int mesh_partition_ranks = 0;          // the rank count it is made for

  bool weak() const { return mesh_path.empty() && elements_per_rank > 0; }
  std::string scaling() const;
  nlohmann::json describe() const;
};

/// One rank count's problem: the sharing of its virtual ranks, or why it cannot be built.
struct Instance {
  int ranks = 0;
  std::string skipped;  // non-empty: why this rank count is not simulated
  gsr::model::Sharing sharing;
  nlohmann::json shape;  // box elements and blocks per axis, entries per rank
};

/// The largest box gsr-model simulates: 2^40 elements (the bound of --elements). Its axes'
/// element counts times any rank count (<= max_ranks), and its node numbers (<= 2^40 65^3),
/// then stay far inside 64 bits.
inline constexpr std::int64_t max_box_elements = std::int64_t{1} << 40;
/// The most virtual ranks: the plan statistics take about 1 KB per virtual rank and method
/// (docs/tools.md, "gsr-model").
inline constexpr int max_ranks = 1 << 22;

/// Empty if the box at `ranks` virtual ranks is within max_box_elements; else why not,
/// with its element counts (a mesh file: always empty).
std::string box_size_problem(const ProblemSpec& spec, int ranks);

Instance build_instance(const ProblemSpec& spec, int ranks);

/// Reads the mesh file's ids in this one process (calls MPI_Init if needed: the loader is
/// MPI-IO; no messages are exchanged), and its /mesh/partition when mesh_own_partition is
/// set (throws Error(io) if it has none).
void load_mesh(ProblemSpec& spec);

}  // namespace gsr::tools::model
