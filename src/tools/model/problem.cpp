// tools/model/problem.cpp — see problem.hpp.
#include "tools/model/problem.hpp"

#include <gsr/mesh.hpp>

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>

namespace gsr::tools::model {

namespace {

using gsr::model::BlockGrid;
using gsr::model::BoxModel;

nlohmann::json axes(const std::array<std::int64_t, 3>& v, int dim) {
  return std::vector<std::int64_t>(v.begin(), v.begin() + dim);
}

/// The box and its block grid for `ranks` virtual ranks.
std::pair<BoxModel, BlockGrid> box_for(const ProblemSpec& spec, int ranks) {
  BoxModel box;
  box.dim = spec.dim;
  box.order = spec.order;
  box.periodic = spec.periodic;
  BlockGrid grid;
  if (spec.weak()) {
    // Every rank gets the same near-cubic block; the ranks are laid out as slabs along the
    // last axis, or as a near-cubic grid.
    const auto block = gsr::model::near_cube_factors(spec.elements_per_rank, spec.dim);
    std::array<std::int64_t, 3> blocks{1, 1, 1};
    if (spec.partition == Partition::slab)
      blocks[spec.dim - 1] = ranks;
    else
      blocks = gsr::model::near_cube_factors(ranks, spec.dim);
    for (int d = 0; d < spec.dim; ++d) {
      box.elements[d] = block[d] * blocks[d];
      grid.blocks[d] = static_cast<int>(blocks[d]);
    }
    return {box, grid};
  }
  if (spec.elements.size() == 1) {
    const auto e = gsr::model::near_cube_factors(spec.elements[0], spec.dim);
    for (int d = 0; d < spec.dim; ++d) box.elements[d] = e[d];
  } else {
    for (int d = 0; d < spec.dim; ++d) box.elements[d] = spec.elements[d];
  }
  grid = spec.partition == Partition::slab ? gsr::model::slab_grid(box, ranks) : gsr::model::cube_grid(box, ranks);
  return {box, grid};
}

/// The whole /mesh/partition of a file the loader has already validated.
std::vector<std::int32_t> read_partition(const std::string& path, std::int64_t elements) {
  auto fail = [&] {
    return gsr::Error(gsr::ErrorCode::io, "gsr-model: cannot read /mesh/partition of '" + path + "'");
  };
  struct File {
    hid_t id;
    ~File() {
      if (id >= 0) H5Fclose(id);
    }
  } file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)};
  if (file.id < 0) throw fail();
  const hid_t dataset = H5Dopen2(file.id, "/mesh/partition", H5P_DEFAULT);
  if (dataset < 0) throw fail();
  std::vector<std::int32_t> owner(static_cast<std::size_t>(elements));
  const herr_t status = H5Dread(dataset, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, owner.data());
  H5Dclose(dataset);
  if (status < 0) throw fail();
  return owner;
}

}  // namespace

std::string ProblemSpec::scaling() const {
  if (!mesh_path.empty()) return "mesh";
  return weak() ? "weak" : "strong";
}

nlohmann::json ProblemSpec::describe() const {
  nlohmann::json j;
  if (!mesh_path.empty()) {
    j = {{"kind", "mesh"},
         {"file", mesh_path},
         {"partition", mesh_own_partition ? "the file's /mesh/partition" : "contiguous element ranges"},
         {"elements", mesh_nodes_per_element ? mesh_ids.size() / static_cast<std::size_t>(mesh_nodes_per_element) : 0}};
    return j;
  }
  std::string axes_periodic;
  for (int d = 0; d < dim; ++d)
    if (periodic[d]) axes_periodic += (axes_periodic.empty() ? "" : ",") + std::string(1, "xyz"[d]);
  j = {{"kind", "box"},
       {"dim", dim},
       {"order", order},
       {"periodic", axes_periodic},
       {"partition", partition == Partition::slab ? "slab" : "cube"},
       {"scaling", scaling()}};
  if (weak())
    j["elements_per_rank"] = elements_per_rank;
  else
    j["elements"] = elements;
  return j;
}

std::string box_size_problem(const ProblemSpec& spec, int ranks) {
  if (!spec.mesh_path.empty()) return {};
  // In long double: the counts given may overflow 64 bits when multiplied.
  long double elements = 1;
  std::string axes_given;
  if (spec.weak()) {
    elements = static_cast<long double>(spec.elements_per_rank) * ranks;  // E per block, P blocks
  } else {
    for (const std::int64_t e : spec.elements) {
      elements *= static_cast<long double>(e);
      axes_given += (axes_given.empty() ? "" : " x ") + std::to_string(e);
    }
  }
  if (elements <= static_cast<long double>(max_box_elements)) return {};
  char amount[32];
  std::snprintf(amount, sizeof amount, "%.3Lg", elements);
  const bool per_axis = spec.elements.size() > 1 && !spec.weak();
  return std::string("a box of ") + amount + " elements" + (per_axis ? " (" + axes_given + ")" : "") +
         ", more than the 2^40 gsr-model simulates";
}

Instance build_instance(const ProblemSpec& spec, int ranks) {
  Instance in;
  in.ranks = ranks;
  if (!spec.mesh_path.empty()) {
    const std::int64_t elements = static_cast<std::int64_t>(spec.mesh_ids.size()) / spec.mesh_nodes_per_element;
    if (spec.mesh_own_partition && ranks != spec.mesh_partition_ranks) {
      in.skipped = "the file's partition is for " + std::to_string(spec.mesh_partition_ranks) + " ranks";
      return in;
    }
    std::vector<std::int32_t> owner(static_cast<std::size_t>(elements));
    if (spec.mesh_own_partition) owner = spec.mesh_owner;
    for (int r = 0; r < ranks && !spec.mesh_own_partition; ++r) {
      const auto [first, last] = gsr::block_range(elements, r, ranks);
      std::fill(owner.begin() + first, owner.begin() + last, r);
    }
    in.sharing = gsr::model::sharing_from_elements(spec.mesh_ids, spec.mesh_nodes_per_element, owner, ranks);
    in.shape = {{"elements", elements}, {"elements_per_rank_max", (elements + ranks - 1) / ranks}};
    return in;
  }
  const auto [box, grid] = box_for(spec, ranks);
  if (std::string problem = gsr::model::grid_problem(box, grid); !problem.empty()) {
    in.skipped = problem;
    return in;
  }
  std::int64_t largest = 1;
  for (int d = 0; d < box.dim; ++d) largest *= (box.elements[d] + grid.blocks[d] - 1) / grid.blocks[d];
  in.shape = {{"elements", axes(box.elements, box.dim)},
              {"blocks", std::vector<int>(grid.blocks.begin(), grid.blocks.begin() + box.dim)},
              {"elements_per_rank_max", largest},
              {"entries_per_rank_max", largest * box.nodes_per_element()}};
  in.sharing = gsr::model::box_sharing(box, grid);
  return in;
}

void load_mesh(ProblemSpec& spec) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  gsr::ReadOptions options;
  options.coordinates = false;
  gsr::Mesh mesh = gsr::read_mesh(spec.mesh_path, MPI_COMM_SELF, options);
  spec.mesh_ids = std::move(mesh.ids);
  spec.mesh_nodes_per_element = mesh.nodes_per_element();
  if (!spec.mesh_own_partition) return;
  if (!mesh.info.has_partition)
    throw gsr::Error(gsr::ErrorCode::io, "gsr-model: '" + spec.mesh_path + "' has no /mesh/partition");
  spec.mesh_owner = read_partition(spec.mesh_path, mesh.info.elements);
  spec.mesh_partition_ranks = mesh.info.partition_ranks;
  for (std::int32_t r : spec.mesh_owner) {
    if (r < 0 || (mesh.info.partition_ranks > 0 && r >= mesh.info.partition_ranks))
      throw gsr::Error(gsr::ErrorCode::io, "gsr-model: '" + spec.mesh_path + "': /mesh/partition assigns rank " +
                                               std::to_string(r) + ", outside its " +
                                               std::to_string(mesh.info.partition_ranks) + " ranks");
    if (mesh.info.partition_ranks == 0) spec.mesh_partition_ranks = std::max(spec.mesh_partition_ranks, r + 1);
  }
}

}  // namespace gsr::tools::model
