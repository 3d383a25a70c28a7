// mesh_additions_test.cpp — the optional boundary, group and name datasets that imported
// meshes carry (docs/mesh-format.md, "Boundary and groups"): written collectively at P ranks,
// read back with both distributions and by read_mesh_info; absent in a plain mesh; damaged
// shapes and types refused naming the dataset; a MeshWriter layout that asks for them refused.
#include "world.hpp"
#include "scratch_dir.hpp"

#include <gsr/mesh.hpp>

#include <hdf5.h>

#include <gtest/gtest.h>

#include <cstring>

namespace {

using gsr::testing::ScratchDir;
using gsr_test::world_rank;
using gsr_test::world_size;

constexpr int dim = 3, order = 1, fields = 2, faces = 6;
constexpr std::int64_t elements = 7;

// The values the test writes, from formulas of the element, field and face alone.
std::int64_t tag_of(std::int64_t e, int field, int face) {
  return (e + field + face) % 4 == 0 ? -1 : e * 100 + field * 10 + face;
}
std::array<char, 4> kind_of(std::int64_t e, int field, int face) {
  if (tag_of(e, field, face) < 0) return {};
  return (face % 2 == 0) ? std::array<char, 4>{'W', 0, 0, 0} : std::array<char, 4>{'M', 'S', 'H', 0};
}
std::int64_t group_of(std::int64_t e) { return e < 5 ? 1 : 2; }

/// This rank's block of a 7-element mesh of order 1 whose ids are its node numbers.
gsr::Mesh block_mesh() {
  gsr::Mesh mesh;
  mesh.info.dim = dim;
  mesh.info.order = order;
  mesh.info.boundary_fields = fields;
  mesh.info.has_boundary_kinds = true;
  mesh.info.has_groups = true;
  mesh.info.fluid_elements = 5;
  mesh.info.names = {{2, 3, "Wall"}, {3, 1, "fluid"}, {3, 2, "a longer name of a solid"}};
  const auto [first, last] = gsr::block_range(elements, world_rank(), world_size());
  for (std::int64_t e = first; e < last; ++e) {
    mesh.elements.push_back(e);
    for (int n = 0; n < 8; ++n) mesh.ids.push_back(e * 8 + n + 1);
    for (int field = 0; field < fields; ++field)
      for (int face = 0; face < faces; ++face) {
        mesh.boundary.push_back(tag_of(e, field, face));
        mesh.boundary_kinds.push_back(kind_of(e, field, face));
      }
    mesh.groups.push_back(group_of(e));
  }
  return mesh;
}

void expect_additions(const gsr::Mesh& mesh) {
  ASSERT_EQ(mesh.info.boundary_fields, fields);
  ASSERT_TRUE(mesh.info.has_boundary_kinds);
  ASSERT_TRUE(mesh.info.has_groups);
  EXPECT_EQ(mesh.info.fluid_elements, 5);
  ASSERT_EQ(mesh.info.names.size(), 3u);
  EXPECT_EQ(mesh.info.names[0].name, "Wall");
  EXPECT_EQ(mesh.info.names[0].dim, 2);
  EXPECT_EQ(mesh.info.names[0].tag, 3);
  EXPECT_EQ(mesh.info.names[2].name, "a longer name of a solid");
  EXPECT_EQ(mesh.info.names[2].tag, 2);
  ASSERT_EQ(mesh.boundary.size(), mesh.elements.size() * fields * faces);
  ASSERT_EQ(mesh.boundary_kinds.size(), mesh.boundary.size());
  ASSERT_EQ(mesh.groups.size(), mesh.elements.size());
  for (std::size_t k = 0; k < mesh.elements.size(); ++k) {
    const std::int64_t e = mesh.elements[k];
    EXPECT_EQ(mesh.groups[k], group_of(e));
    for (int field = 0; field < fields; ++field)
      for (int face = 0; face < faces; ++face) {
        const std::size_t at = (k * fields + static_cast<std::size_t>(field)) * faces + static_cast<std::size_t>(face);
        EXPECT_EQ(mesh.boundary[at], tag_of(e, field, face))
            << "element " << e << " field " << field << " face " << face;
        EXPECT_STREQ(mesh.boundary_kinds[at].data(), kind_of(e, field, face).data());
      }
  }
}

TEST(MeshAdditions, RoundTripWithBothDistributions) {
  ScratchDir dir("additions");
  const std::string path = dir.file("additions.h5");
  gsr::write_mesh(path, block_mesh(), MPI_COMM_WORLD);
  expect_additions(gsr::read_mesh(path, MPI_COMM_WORLD));
  expect_additions(gsr::read_mesh(path, MPI_COMM_WORLD, {.distribution = gsr::Distribution::partition}));
  const gsr::MeshInfo info = gsr::read_mesh_info(path, MPI_COMM_WORLD);
  EXPECT_EQ(info.boundary_fields, fields);
  EXPECT_EQ(info.names.size(), 3u);
  // Asked not to, the reader leaves them out.
  const gsr::Mesh plain = gsr::read_mesh(path, MPI_COMM_WORLD, {.boundary = false});
  EXPECT_TRUE(plain.boundary.empty());
  EXPECT_TRUE(plain.groups.empty());
  EXPECT_EQ(plain.info.boundary_fields, 0);
}

TEST(MeshAdditions, AbsentFromAPlainMesh) {
  ScratchDir dir("additions-plain");
  const std::string path = dir.file("plain.h5");
  gsr::Mesh mesh = block_mesh();
  mesh.info.boundary_fields = 0;
  mesh.info.has_boundary_kinds = mesh.info.has_groups = false;
  mesh.info.fluid_elements = 0;
  mesh.info.names.clear();
  gsr::write_mesh(path, mesh, MPI_COMM_WORLD);
  const gsr::Mesh read = gsr::read_mesh(path, MPI_COMM_WORLD);
  EXPECT_EQ(read.info.boundary_fields, 0);
  EXPECT_FALSE(read.info.has_groups);
  EXPECT_TRUE(read.info.names.empty());
  EXPECT_TRUE(read.boundary.empty());
  EXPECT_EQ(read.ids, mesh.ids);
}

TEST(MeshAdditions, WrongLengthsRefusedOnEveryRank) {
  ScratchDir dir("additions-bad");
  gsr::Mesh mesh = block_mesh();
  if (world_rank() == world_size() - 1) mesh.boundary.pop_back();
  try {
    gsr::write_mesh(dir.file("bad.h5"), mesh, MPI_COMM_WORLD);
    FAIL() << "a short boundary array was written";
  } catch (const gsr::Error& e) {
    EXPECT_NE(std::string(e.what()).find("boundary tags"), std::string::npos) << e.what();
  }
}

// E-IO-WRITE-DISAGREE: the names size a dataset every rank creates, so ranks that hold other
// names (here: only the last rank renames one) are refused before anything is created.
TEST(MeshAdditions, NamesThatDifferBetweenRanksRefused) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks to disagree";
  ScratchDir dir("additions-names");
  gsr::Mesh mesh = block_mesh();
  if (world_rank() == world_size() - 1) mesh.info.names[0].name = "Wall, renamed on one rank";
  try {
    gsr::write_mesh(dir.file("names.h5"), mesh, MPI_COMM_WORLD);
    FAIL() << "ranks with different names wrote a file";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), gsr::ErrorCode::mismatch);
    EXPECT_NE(std::string(e.what()).find("ranks disagree about dim, order"), std::string::npos) << e.what();
  }
}

/// Replaces dataset `path` of `file` by one of int64 values of `shape` (rank 0 only).
void replace_dataset(const std::string& file, const char* path, std::vector<hsize_t> shape) {
  if (world_rank() == 0) {
    const hid_t handle = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(handle, 0);
    H5Ldelete(handle, path, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr);
    const hid_t dataset = H5Dcreate2(handle, path, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    std::vector<std::int64_t> zeros(1000, 0);
    H5Dwrite(dataset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data());
    H5Dclose(dataset);
    H5Sclose(space);
    H5Fclose(handle);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

void expect_refused(const std::string& path, const std::string& words) {
  try {
    (void)gsr::read_mesh(path, MPI_COMM_WORLD);
    FAIL() << "read a file whose " << words << " is damaged";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), gsr::ErrorCode::io);
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(MeshAdditions, DamagedAdditionsRefusedNamingThem) {
  ScratchDir dir("additions-damaged");
  const std::string path = dir.file("damaged.h5");
  gsr::write_mesh(path, block_mesh(), MPI_COMM_WORLD);
  replace_dataset(path, "/mesh/boundary", {elements, 2, 4});  // 4 faces in a 3-D mesh
  expect_refused(path, "dataset '/mesh/boundary': has shape [7, 2, 4]");
  gsr::write_mesh(path, block_mesh(), MPI_COMM_WORLD);
  replace_dataset(path, "/mesh/boundary_kinds", {elements, 2, 6});  // integers, not strings
  expect_refused(path, "dataset '/mesh/boundary_kinds': has type 64-bit signed integer");
  gsr::write_mesh(path, block_mesh(), MPI_COMM_WORLD);
  replace_dataset(path, "/mesh/groups", {elements + 1});
  expect_refused(path, "dataset '/mesh/groups': has shape [8]");
  gsr::write_mesh(path, block_mesh(), MPI_COMM_WORLD);
  replace_dataset(path, "/mesh/name_tags", {2, 2});  // 3 names, 2 tags
  expect_refused(path, "have 3 and 2 rows");
}

// block_owner inverts block_range, also with fewer elements than ranks.
TEST(MeshAdditions, BlockOwnerInvertsBlockRange) {
  for (std::int64_t elements = 1; elements <= 23; ++elements)
    for (int ranks = 1; ranks <= 9; ++ranks)
      for (int rank = 0; rank < ranks; ++rank) {
        const auto [first, last] = gsr::block_range(elements, rank, ranks);
        for (std::int64_t e = first; e < last; ++e)
          EXPECT_EQ(gsr::block_owner(e, elements, ranks), rank) << e << " of " << elements << " on " << ranks;
      }
}

TEST(MeshAdditions, MeshWriterRefusesThem) {
  ScratchDir dir("additions-writer");
  gsr::MeshLayout layout{.dim = 2, .order = 1, .elements = 1};
  layout.boundary_fields = 1;
  EXPECT_THROW(gsr::MeshWriter(dir.file("w.h5"), layout), gsr::Error);
}

}  // namespace
