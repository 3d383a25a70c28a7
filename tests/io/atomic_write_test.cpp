// atomic_write_test.cpp — writers never leave a half-written file at the target's name
// (io/files.hpp): a failed or abandoned write leaves what was there before untouched and no
// temporary behind; a successful one leaves exactly the file and its sidecar.
#include "scratch_dir.hpp"
#include "world.hpp"

#include <gsr/error.hpp>
#include <gsr/mesh.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

namespace {

using gsr::testing::ScratchDir;
using gsr_test::world_rank;
using gsr_test::world_size;

/// The names of the files in `dir`.
std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Two 2-D order-1 elements, one per rank at P = 2 (rank 0 writes both at P = 1).
gsr::Mesh two_quads() {
  gsr::Mesh mesh;
  mesh.info.dim = 2;
  mesh.info.order = 1;
  const std::vector<std::int64_t> ids[2] = {{1, 2, 4, 5}, {2, 3, 5, 6}};
  for (int e = 0; e < 2; ++e) {
    if (e % world_size() != world_rank()) continue;
    mesh.elements.push_back(e);
    mesh.ids.insert(mesh.ids.end(), ids[e].begin(), ids[e].end());
  }
  return mesh;
}

gsr::MeshLayout quad_layout(std::int64_t elements) {
  gsr::MeshLayout layout;
  layout.dim = 2;
  layout.order = 1;
  layout.elements = elements;
  return layout;
}

TEST(AtomicWrite, SerialWriterLeavesTheOldFileUntilCloseSucceeds) {
  if (world_rank() != 0) GTEST_SKIP() << "serial writer: rank 0 only";
  ScratchDir dir("gsr-atomic-serial", MPI_COMM_SELF);
  const std::string path = dir.file("mesh.h5");
  const std::vector<std::int64_t> first = {1, 2, 4, 5};
  {
    gsr::MeshWriter writer(path, quad_layout(1));
    writer.write(first);
    writer.close();
  }
  const std::string before = contents(path);
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(names_in(dir.path()), (std::set<std::string>{"mesh.h5"}));

  // Abandoned: destroyed after one of two elements.
  {
    gsr::MeshWriter writer(path, quad_layout(2));
    writer.write(first);
    EXPECT_EQ(contents(path), before) << "the target changed while a new file was being written";
  }
  EXPECT_EQ(contents(path), before);
  EXPECT_EQ(names_in(dir.path()), (std::set<std::string>{"mesh.h5"})) << "a temporary was left behind";

  // Closed incomplete: an error, and still the old file.
  {
    gsr::MeshWriter writer(path, quad_layout(2));
    writer.write(first);
    try {
      writer.close();
      ADD_FAILURE() << "an incomplete file was closed without error";
    } catch (const gsr::Error& e) {
      EXPECT_EQ(e.code(), gsr::ErrorCode::io);
      EXPECT_NE(std::string(e.what()).find("the file is incomplete"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(contents(path), before);
  EXPECT_EQ(names_in(dir.path()), (std::set<std::string>{"mesh.h5"}));

  // Complete: the new file replaces the old one.
  {
    gsr::MeshWriter writer(path, quad_layout(2));
    const std::vector<std::int64_t> both = {1, 2, 4, 5, 2, 3, 5, 6};
    writer.write(both);
    writer.close();
  }
  EXPECT_NE(contents(path), before);
  EXPECT_EQ(gsr::read_mesh(path, MPI_COMM_SELF).elements, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(names_in(dir.path()), (std::set<std::string>{"mesh.h5"}));
}

TEST(AtomicWrite, CollectiveWriterPublishesOnlyACompleteFile) {
  ScratchDir dir("gsr-atomic-collective");
  const std::string path = dir.file("mesh.h5");
  gsr::write_mesh(path, two_quads(), MPI_COMM_WORLD);
  const gsr::Mesh back = gsr::read_mesh(path, MPI_COMM_WORLD);
  EXPECT_EQ(back.ids.size(), back.elements.size() * 4);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) EXPECT_EQ(names_in(dir.path()), (std::set<std::string>{"mesh.h5"}));

  // The target's name is taken by a directory: the file is written but cannot be put in
  // place. Every rank gets the error, the directory stays, and no temporary is left.
  const std::string blocked = dir.file("blocked.h5");
  if (world_rank() == 0) {
    std::filesystem::create_directory(blocked);
    std::ofstream(blocked + "/keep") << "kept";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  try {
    gsr::write_mesh(blocked, two_quads(), MPI_COMM_WORLD);
    ADD_FAILURE() << "a mesh was written over a directory";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), gsr::ErrorCode::io) << e.what();  // a file error is the same on every rank
    EXPECT_NE(std::string(e.what()).find("blocked.h5"), std::string::npos) << e.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    EXPECT_EQ(names_in(dir.path()), (std::set<std::string>{"mesh.h5", "blocked.h5"}));
    EXPECT_EQ(contents(blocked + "/keep"), "kept");
  }
}

}  // namespace

namespace {

// A mesh named FILE.xmf has its sidecar's own name (E-IO-WRITE-SIDECAR): both writers
// refuse it before writing anything, and what was at that path stays as it was.
TEST(AtomicWrite, WritersRefuseAMeshNamedLikeItsSidecar) {
  ScratchDir dir("gsr-atomic-sidecar");
  const std::string path = dir.file("mesh.xmf");
  if (world_rank() == 0) std::ofstream(path) << "keep me\n";
  MPI_Barrier(MPI_COMM_WORLD);
  auto expect_refused = [&](const char* writer, const auto& write) {
    try {
      write();
      ADD_FAILURE() << writer << " wrote a mesh over its own sidecar";
    } catch (const gsr::Error& e) {
      EXPECT_EQ(e.code(), gsr::ErrorCode::io) << writer;
      EXPECT_NE(std::string(e.what()).find("would be written over the mesh file itself"), std::string::npos)
          << writer << ": " << e.what();
    }
    EXPECT_EQ(contents(path), "keep me\n") << writer;
  };
  if (world_rank() == 0) {
    gsr::MeshLayout layout = quad_layout(1);
    layout.coordinates = true;
    expect_refused("MeshWriter", [&] { gsr::MeshWriter writer(dir.file("./mesh.xmf"), layout); });
  }
  gsr::Mesh mesh = two_quads();
  mesh.coordinates.assign(mesh.ids.size() * 2, 0.5);
  expect_refused("write_mesh", [&] { gsr::write_mesh(path, mesh, MPI_COMM_WORLD); });
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) EXPECT_EQ(names_in(dir.path()), (std::set<std::string>{"mesh.xmf"}));
}

}  // namespace
