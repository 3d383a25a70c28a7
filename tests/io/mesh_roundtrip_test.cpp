// mesh_roundtrip_test.cpp — write, then read back in parallel (P = 1..4), with both
// distributions and both writers; plus the C loader and the two-element example's file
// (the ids and values of docs/concepts.md's Tables 1 and 2, tests/support/reference_tables.hpp).
#include "world.hpp"
#include "reference_tables.hpp"
#include "scratch_dir.hpp"
#include "tools/box.hpp"

#include <gsr/handle.hpp>
#include <gsr/mesh.h>
#include <gsr/mesh.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <numeric>

namespace {

namespace seed = gsr_test::seed;
using gsr::testing::ScratchDir;
using gsr::tools::Box;
using gsr::tools::BoxSpec;

using gsr_test::world_rank;
using gsr_test::world_size;

/// A small 3-D box with every feature: periodic in z, deformed, partitioned for P.
BoxSpec test_box() {
  return {.dim = 3,
          .elements = {3, 2, 2},
          .order = 2,
          .periodic = {false, false, true},
          .deform = true,
          .partition_ranks = world_size()};
}

/// Rank 0 writes the box; every rank waits for the file.
void write_box_on_rank0(const BoxSpec& spec, const std::string& path) {
  int ok = 1;
  if (world_rank() == 0) {
    try {
      gsr::tools::write_box(spec, path, {}, /*slab_values=*/50);  // several slabs even here
    } catch (...) {
      ok = 0;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  ASSERT_EQ(ok, 1) << "rank 0 could not write " << path;
}

/// Every element of `mesh` has the generator's ids and coordinates.
void expect_matches_box(const gsr::Mesh& mesh, const Box& box) {
  const auto nodes = static_cast<std::size_t>(box.spec().nodes_per_element());
  const auto dim = static_cast<std::size_t>(box.spec().dim);
  ASSERT_EQ(mesh.ids.size(), mesh.elements.size() * nodes);
  std::vector<std::int64_t> ids(nodes);
  std::vector<double> coordinates(nodes * dim);
  for (std::size_t k = 0; k < mesh.elements.size(); ++k) {
    box.element_ids(mesh.elements[k], ids);
    box.element_coordinates(mesh.elements[k], coordinates);
    EXPECT_TRUE(std::equal(ids.begin(), ids.end(), mesh.ids.begin() + static_cast<std::ptrdiff_t>(k * nodes)))
        << "element " << mesh.elements[k];
    if (mesh.has_coordinates())
      EXPECT_TRUE(std::equal(coordinates.begin(), coordinates.end(),
                             mesh.coordinates.begin() + static_cast<std::ptrdiff_t>(k * nodes * dim)))
          << "element " << mesh.elements[k];
  }
}

TEST(MeshRoundTrip, BlocksGiveEachRankItsContiguousRange) {
  ScratchDir dir("gsr-roundtrip-blocks");
  const BoxSpec spec = test_box();
  const std::string path = dir.file("box.h5");
  write_box_on_rank0(spec, path);
  const gsr::Mesh mesh = gsr::read_mesh(path, MPI_COMM_WORLD);
  EXPECT_EQ(mesh.dim(), 3);
  EXPECT_EQ(mesh.order(), 2);
  EXPECT_EQ(mesh.info.elements, 12);
  EXPECT_TRUE(mesh.has_coordinates());
  EXPECT_TRUE(mesh.info.has_partition);
  EXPECT_EQ(mesh.info.partition_ranks, world_size());
  EXPECT_EQ(mesh.info.periods[0], 0.0);
  EXPECT_EQ(mesh.info.periods[2], 2.0);
  const auto [first, last] = gsr::block_range(12, world_rank(), world_size());
  std::vector<std::int64_t> expected(static_cast<std::size_t>(last - first));
  std::iota(expected.begin(), expected.end(), first);
  EXPECT_EQ(mesh.elements, expected);
  expect_matches_box(mesh, Box(spec));
}

TEST(MeshRoundTrip, PartitionGivesEachRankItsPiece) {
  ScratchDir dir("gsr-roundtrip-partition");
  const BoxSpec spec = test_box();
  const std::string path = dir.file("box.h5");
  write_box_on_rank0(spec, path);
  gsr::ReadOptions options;
  options.distribution = gsr::Distribution::partition;
  const gsr::Mesh mesh = gsr::read_mesh(path, MPI_COMM_WORLD, options);
  const std::vector<std::int32_t> owner = gsr::tools::box_partition(spec, world_size());
  std::vector<std::int64_t> expected;
  for (std::size_t e = 0; e < owner.size(); ++e)
    if (owner[e] == world_rank()) expected.push_back(static_cast<std::int64_t>(e));
  EXPECT_EQ(mesh.elements, expected);
  expect_matches_box(mesh, Box(spec));
}

TEST(MeshRoundTrip, WithoutCoordinatesWhenNotAsked) {
  ScratchDir dir("gsr-roundtrip-nocoords");
  const std::string path = dir.file("box.h5");
  write_box_on_rank0(test_box(), path);
  gsr::ReadOptions options;
  options.coordinates = false;
  const gsr::Mesh mesh = gsr::read_mesh(path, MPI_COMM_WORLD, options);
  EXPECT_FALSE(mesh.has_coordinates());
  EXPECT_TRUE(mesh.coordinates.empty());
  expect_matches_box(mesh, Box(test_box()));
}

TEST(MeshRoundTrip, CollectiveWriterThenBothDistributions) {
  // Each rank holds a scattered set of elements (e mod P == rank), writes them together;
  // reading by partition must give each rank back exactly what it wrote.
  ScratchDir dir("gsr-roundtrip-collective");
  const std::string path = dir.file("written.h5");
  BoxSpec spec = test_box();
  spec.partition_ranks = 0;
  const Box box(spec);
  gsr::Mesh mine;
  mine.info.dim = spec.dim;
  mine.info.order = spec.order;
  mine.info.periods = {0, 0, 2};
  const auto nodes = static_cast<std::size_t>(spec.nodes_per_element());
  for (std::int64_t e = world_rank(); e < spec.element_count(); e += world_size()) {
    mine.elements.push_back(e);
    mine.ids.resize(mine.ids.size() + nodes);
    mine.coordinates.resize(mine.coordinates.size() + nodes * 3);
    box.element_ids(e, std::span(mine.ids).last(nodes));
    box.element_coordinates(e, std::span(mine.coordinates).last(nodes * 3));
  }
  mine.info.has_coordinates = true;
  gsr::write_mesh(path, mine, MPI_COMM_WORLD);

  gsr::ReadOptions by_partition;
  by_partition.distribution = gsr::Distribution::partition;
  const gsr::Mesh back = gsr::read_mesh(path, MPI_COMM_WORLD, by_partition);
  EXPECT_EQ(back.elements, mine.elements);
  EXPECT_EQ(back.ids, mine.ids);
  EXPECT_EQ(back.coordinates, mine.coordinates);
  EXPECT_EQ(back.info.periods[2], 2.0);

  const gsr::Mesh blocks = gsr::read_mesh(path, MPI_COMM_WORLD);
  expect_matches_box(blocks, box);
  if (world_rank() == 0) EXPECT_TRUE(std::filesystem::exists(dir.file("written.xmf")));
}

TEST(MeshRoundTrip, CollectiveWriterRejectsOverlappingElements) {
  ScratchDir dir("gsr-roundtrip-overlap");
  gsr::Mesh mine;
  mine.info.dim = 2;
  mine.info.order = 1;
  mine.elements = {0};  // every rank claims element 0
  mine.ids = {1, 2, 3, 4};
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks to overlap";
  try {
    gsr::write_mesh(dir.file("overlap.h5"), mine, MPI_COMM_WORLD);
    ADD_FAILURE() << "overlapping elements were written";
  } catch (const gsr::Error& e) {
    EXPECT_NE(std::string(e.what()).find("exactly once"), std::string::npos) << e.what();
  }
}

TEST(MeshRoundTrip, CLoaderGivesTheSameElements) {
  ScratchDir dir("gsr-roundtrip-c");
  const std::string path = dir.file("box.h5");
  const BoxSpec spec = test_box();
  write_box_on_rank0(spec, path);
  const auto [first, last] = gsr::block_range(spec.element_count(), world_rank(), world_size());
  const std::vector<std::int32_t> owner = gsr::tools::box_partition(spec, world_size());
  for (const int distribution : {GSR_MESH_BLOCKS, GSR_MESH_PARTITION}) {
    // What the C++ loader gives, as tested above: blocks or the generator's partition.
    gsr::Mesh expected;
    expected.info.dim = 3;
    expected.info.order = 2;
    expected.info.has_coordinates = true;
    for (std::int64_t e = 0; e < spec.element_count(); ++e)
      if (distribution == GSR_MESH_BLOCKS ? (e >= first && e < last)
                                          : owner[static_cast<std::size_t>(e)] == world_rank())
        expected.elements.push_back(e);
    const Box box(spec);
    for (const std::int64_t e : expected.elements) {
      expected.ids.resize(expected.ids.size() + 27);
      expected.coordinates.resize(expected.coordinates.size() + 81);
      box.element_ids(e, std::span(expected.ids).last(27));
      box.element_coordinates(e, std::span(expected.coordinates).last(81));
    }
    gsr_mesh mesh;
    ASSERT_EQ(gsr_mesh_load(path.c_str(), MPI_COMM_WORLD, distribution, distribution == GSR_MESH_BLOCKS, &mesh),
              GSR_SUCCESS);
    EXPECT_EQ(mesh.dim, 3);
    EXPECT_EQ(mesh.order, 2);
    EXPECT_EQ(mesh.nodes_per_element, 27);
    EXPECT_EQ(mesh.global_elements, 12);
    ASSERT_EQ(mesh.local_elements, static_cast<int64_t>(expected.elements.size()));
    ASSERT_EQ(mesh.n, static_cast<int64_t>(expected.ids.size()));
    if (mesh.n > 0) {
      EXPECT_TRUE(std::equal(expected.ids.begin(), expected.ids.end(), mesh.ids));
      EXPECT_TRUE(std::equal(expected.elements.begin(), expected.elements.end(), mesh.elements));
    }
    if (distribution == GSR_MESH_BLOCKS) {  // asked with coordinates
      EXPECT_EQ(mesh.has_coordinates, 1);
      if (mesh.n > 0)
        EXPECT_TRUE(std::equal(expected.coordinates.begin(), expected.coordinates.end(), mesh.coordinates));
    } else {  // asked without
      EXPECT_EQ(mesh.has_coordinates, 0);
      EXPECT_EQ(mesh.coordinates, nullptr);
    }
    gsr_mesh_free(&mesh);
    EXPECT_EQ(mesh.ids, nullptr);
    gsr_mesh_free(&mesh);  // twice is harmless
  }
}

TEST(MeshRoundTrip, SeedTwoElementFileGivesTable1AndTable2) {
  ScratchDir dir("gsr-roundtrip-two");
  const std::string path = dir.file("two_element.h5");
  if (world_rank() == 0) gsr::tools::write_two_element(path);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_size() != 2) {
    const gsr::Mesh mesh = gsr::read_mesh(path, MPI_COMM_WORLD);  // blocks work at any P
    EXPECT_EQ(mesh.info.elements, 2);
    return;
  }
  gsr::ReadOptions options;
  options.distribution = gsr::Distribution::partition;
  const gsr::Mesh mesh = gsr::read_mesh(path, MPI_COMM_WORLD, options);
  EXPECT_EQ(mesh.ids, seed::local_concat(seed::id));
  // gs(add) of Table 1's u gives Table 2's add rows.
  std::vector<double> values = seed::local_concat(seed::u);
  const std::vector<double> sum = seed::local_concat(seed::table2[0]);
  gsr::Handle handle(mesh.ids, MPI_COMM_WORLD);
  handle.apply(std::span<double>(values), gsr::Op::add);
  for (std::size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(values[i], sum[i], 1e-12) << i;
}

TEST(Xdmf, SidecarReferencesTheDatasetsWithTheirShapes) {
  ScratchDir dir("gsr-xdmf");
  const std::string path = dir.file("box.h5");
  write_box_on_rank0(test_box(), path);
  if (world_rank() != 0) return;
  std::ifstream in(gsr::xdmf_path(path));
  ASSERT_TRUE(in) << "no sidecar next to " << path;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // 12 elements of order 2 in 3-D: 27 nodes and 8 hexahedral sub-cells each; the node
  // views have one row per node (12 x 27 = 324).
  EXPECT_NE(text.find("TopologyType=\"Hexahedron\" NumberOfElements=\"96\""), std::string::npos) << text;
  EXPECT_NE(text.find("Dimensions=\"96 8\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">box.h5:/xdmf/cells"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Dimensions=\"324 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">box.h5:/xdmf/points"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Dimensions=\"324\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">box.h5:/xdmf/global_ids"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Name=\"rank\""), std::string::npos) << text;
}

}  // namespace
