// model_vs_handle_test.cpp — the simulated plans of src/model/ against real ones: on every
// rank, for every method, the statistics gsr-model computes for that virtual rank equal
// those of a gsr::Handle built with the same ids and partition (stages, every message,
// neighbours, shared groups). Boxes in slabs and near-cubes (periodic or not, 2-D and 3-D),
// and a mesh whose ids are randomly permuted, partly flagged or zero, and whose elements
// are dealt to ranks at random, so that nothing box-shaped can pass by accident; and mesh
// files as gsr-model reads them (in one process) against the loader on every rank.
#include "model/box.hpp"
#include "model/simulate.hpp"
#include "tools/box.hpp"
#include "tools/model/problem.hpp"

#include <gsr/handle.hpp>
#include <gsr/mesh.hpp>
#include <gsr/types.hpp>

#include "world.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace {

using namespace gsr::model;

struct Case {
  std::vector<std::vector<std::int64_t>> ids_per_rank;
  Sharing sharing;
};

/// Each rank's ids: the elements it owns, ascending, as read_mesh would give them.
std::vector<std::vector<std::int64_t>> rank_ids(const BoxModel& box, const std::vector<std::int32_t>& owner, int ranks,
                                                const std::vector<std::int64_t>& relabel = {}) {
  std::vector<std::vector<std::int64_t>> ids(static_cast<std::size_t>(ranks));
  std::vector<std::int64_t> element(static_cast<std::size_t>(box.nodes_per_element()));
  for (std::int64_t e = 0; e < box.element_count(); ++e) {
    box.element_ids(e, element);
    for (std::int64_t id : element)
      ids[static_cast<std::size_t>(owner[static_cast<std::size_t>(e)])].push_back(
          relabel.empty() ? id : relabel[static_cast<std::size_t>(id)]);
  }
  return ids;
}

void expect_same_sharing(const Sharing& a, const Sharing& b) {
  ASSERT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.global_shared_ids, b.global_shared_ids);
  for (int r = 0; r < a.ranks; ++r) {
    const auto& ca = a.rank[r].classes;
    const auto& cb = b.rank[r].classes;
    ASSERT_EQ(ca.size(), cb.size()) << "rank " << r;
    for (std::size_t i = 0; i < ca.size(); ++i) {
      EXPECT_EQ(ca[i].holders, cb[i].holders) << "rank " << r << " class " << i;
      EXPECT_EQ(ca[i].count, cb[i].count) << "rank " << r << " class " << i;
    }
  }
}

Case box_case(const BoxModel& box, const BlockGrid& grid) {
  Case c;
  const int P = grid.ranks();
  c.ids_per_rank = rank_ids(box, element_owners(box, grid), P);
  c.sharing = box_sharing(box, grid);
  // The shortcut over the block grid agrees with counting the ids themselves.
  expect_same_sharing(c.sharing, sharing_from_rank_ids(c.ids_per_rank));
  return c;
}

/// Every method's real Stats on this rank, built from `ids`, against the simulation's.
void expect_real_equals_model(const std::vector<std::int64_t>& ids, const Sharing& sharing, const std::string& what) {
  const int me = gsr_test::world_rank();
  for (gsr::Method method : gsr::registered_methods()) {
    SCOPED_TRACE(what + ", method " + std::string(gsr::to_string(method)));
    gsr::SetupOptions options;
    options.method = method;
    gsr::Handle handle(ids, MPI_COMM_WORLD, options);
    const gsr::Stats& real = handle.stats();
    const RankPlan model = simulate(method, sharing).rank[static_cast<std::size_t>(me)];
    EXPECT_EQ(real.shared_groups, sharing.rank[static_cast<std::size_t>(me)].shared_groups);
    EXPECT_EQ(static_cast<std::uint64_t>(real.global_shared_ids), sharing.global_shared_ids);
    EXPECT_EQ(real.neighbors, model.neighbors);
    EXPECT_EQ(real.messages_per_call, model.messages_per_call);
    EXPECT_EQ(real.values_per_call, model.values_per_call);
    ASSERT_EQ(real.stages.size(), model.stages.size());
    for (std::size_t d = 0; d < real.stages.size(); ++d) {
      EXPECT_EQ(real.stages[d].messages, model.stages[d].messages) << "stage " << d;
      EXPECT_EQ(real.stages[d].values, model.stages[d].values) << "stage " << d;
    }
    ASSERT_EQ(real.messages.size(), model.messages.size());
    for (std::size_t i = 0; i < real.messages.size(); ++i) {
      EXPECT_EQ(real.messages[i].stage, model.messages[i].stage) << "message " << i;
      EXPECT_EQ(real.messages[i].peer, model.messages[i].peer) << "message " << i;
      EXPECT_EQ(real.messages[i].sent, model.messages[i].sent) << "message " << i;
      EXPECT_EQ(real.messages[i].values, model.messages[i].values) << "message " << i;
    }
    if (method == gsr::Method::crystal_router)
      EXPECT_LE(model.stages.size(), static_cast<std::size_t>(ceil_log2(gsr_test::world_size())));
    // Memory is an estimate (vectors keep spare capacity, small members are left out):
    // within a factor of 2 of the method's real plan and of its buffers after a call of
    // one double, wherever the rank shares anything (the call itself is on every rank).
    std::vector<double> u(ids.size(), 1.0);
    handle.apply(std::span<double>(u), gsr::Op::add);
    if (real.shared_groups > 0) {
      const gsr::Stats& after = handle.stats();
      const auto within_2x = [](double estimate, double real_bytes) {
        return estimate <= 2 * real_bytes && real_bytes <= 2 * estimate;
      };
      EXPECT_TRUE(within_2x(static_cast<double>(model.plan_bytes), static_cast<double>(after.method_bytes)))
          << "plan: estimated " << model.plan_bytes << " bytes, the handle's method holds " << after.method_bytes
          << " (rank " << me << ", " << real.shared_groups << " shared groups)";
      EXPECT_TRUE(within_2x(static_cast<double>(model.buffer_bytes), static_cast<double>(after.buffer_bytes)))
          << "buffers: estimated " << model.buffer_bytes << " bytes, the handle holds " << after.buffer_bytes;
    }
  }
}

void expect_real_equals_model(const Case& c, const std::string& what) {
  expect_real_equals_model(c.ids_per_rank[static_cast<std::size_t>(gsr_test::world_rank())], c.sharing, what);
}

/// gsr-model's view of a mesh file against the loader's, by blocks or by the file's partition.
void expect_mesh_file(const std::string& name, bool own_partition) {
  gsr::tools::model::ProblemSpec spec;
  spec.mesh_path = GSR_MESHES_DIR "/" + name;
  spec.mesh_own_partition = own_partition;
  gsr::tools::model::load_mesh(spec);
  const gsr::tools::model::Instance in = gsr::tools::model::build_instance(spec, gsr_test::world_size());
  ASSERT_TRUE(in.skipped.empty()) << in.skipped;
  gsr::ReadOptions options;
  options.distribution = own_partition ? gsr::Distribution::partition : gsr::Distribution::blocks;
  options.coordinates = false;
  const gsr::Mesh mesh = gsr::read_mesh(spec.mesh_path, MPI_COMM_WORLD, options);
  expect_real_equals_model(mesh.ids, in.sharing, name + (own_partition ? " by its partition" : " in blocks"));
}

TEST(ModelVsHandle, NumberingIsGsrMeshs) {
  gsr::tools::BoxSpec spec;
  spec.dim = 3;
  spec.elements = {3, 2, 4};
  spec.order = 3;
  spec.periodic = {true, false, true};
  const gsr::tools::Box tools_box(spec);
  const BoxModel box{3, {3, 2, 4}, 3, {true, false, true}};
  std::vector<std::int64_t> a(64), b(64);
  for (std::int64_t e = 0; e < box.element_count(); ++e) {
    tools_box.element_ids(e, a);
    box.element_ids(e, b);
    ASSERT_EQ(a, b) << "element " << e;
  }
}

TEST(ModelVsHandle, SlabBox3d) {
  const BoxModel box{3, {3, 2, 7}, 2, {}};
  expect_real_equals_model(box_case(box, slab_grid(box, gsr_test::world_size())), "3-D slabs");
}

TEST(ModelVsHandle, CubeBox3dPeriodic) {
  const BoxModel box{3, {7, 6, 5}, 1, {true, true, false}};
  expect_real_equals_model(box_case(box, cube_grid(box, gsr_test::world_size())), "3-D near-cubes, periodic x,y");
}

TEST(ModelVsHandle, CubeBox2dPeriodic) {
  const BoxModel box{2, {7, 6, 1}, 3, {false, true, false}};
  expect_real_equals_model(box_case(box, cube_grid(box, gsr_test::world_size())), "2-D near-cubes, periodic y");
}

TEST(ModelVsHandle, PermutedIdsIrregularPartition) {
  const int P = gsr_test::world_size();
  const BoxModel box{3, {5, 4, 3}, 2, {false, false, true}};
  std::mt19937_64 random(20261123);  // the same on every rank
  std::int64_t nodes = 0;
  {
    std::vector<std::int64_t> element(static_cast<std::size_t>(box.nodes_per_element()));
    for (std::int64_t e = 0; e < box.element_count(); ++e) {
      box.element_ids(e, element);
      nodes = std::max(nodes, *std::max_element(element.begin(), element.end()));
    }
  }
  // A random bijection of the ids; about one in ten flagged, one in fifty not taking part.
  std::vector<std::int64_t> relabel(static_cast<std::size_t>(nodes) + 1);
  std::iota(relabel.begin(), relabel.end(), std::int64_t{0});
  std::shuffle(relabel.begin() + 1, relabel.end(), random);
  for (std::size_t i = 1; i < relabel.size(); ++i) {
    const auto roll = random() % 50;
    if (roll == 0)
      relabel[i] = 0;
    else if (roll < 5)
      relabel[i] = -relabel[i];
  }
  // Elements dealt at random, rank 0 getting none when there are more than two ranks.
  std::vector<std::int32_t> owner(static_cast<std::size_t>(box.element_count()));
  for (auto& o : owner)
    o = P > 2 ? 1 + static_cast<std::int32_t>(random() % (P - 1)) : static_cast<std::int32_t>(random() % P);
  Case c;
  c.ids_per_rank = rank_ids(box, owner, P, relabel);
  c.sharing = sharing_from_rank_ids(c.ids_per_rank);
  expect_real_equals_model(c, "permuted ids, random partition");
}

TEST(ModelVsHandle, MeshFilesInBlocks) {
  expect_mesh_file("box2d.h5", false);
  expect_mesh_file("box3d_periodic_z.h5", false);
}

TEST(ModelVsHandle, MeshFileByItsPartition) {
  if (gsr_test::world_size() != 3) GTEST_SKIP() << "box3d_periodic_z.h5 is partitioned for 3 ranks";
  expect_mesh_file("box3d_periodic_z.h5", true);
}

}  // namespace
