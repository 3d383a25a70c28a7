// bad_files_test.cpp — the loader against the bad-file corpus (run at P = 2): every bad
// file is an io error on every rank, naming the file and the object; nothing hangs.
#include "bad_meshes.hpp"
#include "scratch_dir.hpp"

#include <gsr/mesh.h>
#include <gsr/mesh.hpp>

#include <gtest/gtest.h>

namespace {

using gsr::testing::BadMesh;
using gsr::testing::ScratchDir;

class BadFiles : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("gsr-bad-files");
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) gsr::testing::write_bad_meshes(dir_->path());
    MPI_Barrier(MPI_COMM_WORLD);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string path_of(const BadMesh& mesh) { return dir_->file(mesh.name + ".h5"); }
  static ScratchDir* dir_;
};

ScratchDir* BadFiles::dir_ = nullptr;

gsr::ReadOptions options_for(const BadMesh& mesh) {
  gsr::ReadOptions options;
  options.distribution = mesh.by_partition ? gsr::Distribution::partition : gsr::Distribution::blocks;
  return options;
}

TEST_F(BadFiles, EveryBadFileIsAnIoErrorNamingFileAndObject) {
  for (const BadMesh& mesh : gsr::testing::bad_meshes()) {
    if (mesh.loads) continue;
    SCOPED_TRACE(mesh.name);
    const std::string path = path_of(mesh);
    try {
      (void)gsr::read_mesh(path, MPI_COMM_WORLD, options_for(mesh));
      ADD_FAILURE() << mesh.name << ": loaded without error";
    } catch (const gsr::Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.code(), gsr::ErrorCode::io) << message;
      EXPECT_NE(message.find("file '" + path + "'"), std::string::npos) << message;
      EXPECT_NE(message.find(mesh.object), std::string::npos) << message;
      EXPECT_NE(message.find(mesh.problem), std::string::npos) << message;
    }
  }
}

TEST_F(BadFiles, PartitionDefectsDoNotMatterForBlocks) {
  for (const BadMesh& mesh : gsr::testing::bad_meshes()) {
    if (!mesh.by_partition && !mesh.loads) continue;
    SCOPED_TRACE(mesh.name);
    const gsr::Mesh loaded = gsr::read_mesh(path_of(mesh), MPI_COMM_WORLD);
    EXPECT_EQ(loaded.info.elements, 4);
  }
}

TEST_F(BadFiles, InfoReportsTheSameErrors) {
  for (const BadMesh& mesh : gsr::testing::bad_meshes()) {
    if (mesh.loads || mesh.by_partition) continue;
    SCOPED_TRACE(mesh.name);
    EXPECT_THROW((void)gsr::read_mesh_info(path_of(mesh), MPI_COMM_WORLD), gsr::Error);
  }
}

TEST_F(BadFiles, CLoaderReturnsIoErrorInReturnMode) {
  const int previous = gsr_get_error_mode();
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  for (const BadMesh& mesh : gsr::testing::bad_meshes()) {
    if (mesh.loads) continue;
    SCOPED_TRACE(mesh.name);
    gsr_mesh loaded;
    const int code = gsr_mesh_load(path_of(mesh).c_str(), MPI_COMM_WORLD,
                                   mesh.by_partition ? GSR_MESH_PARTITION : GSR_MESH_BLOCKS, 1, &loaded);
    EXPECT_EQ(code, GSR_ERR_IO);
    EXPECT_EQ(gsr_last_error(), GSR_ERR_IO);
    const std::string message = gsr_last_error_message();
    EXPECT_NE(message.find("gsr_mesh_load"), std::string::npos) << message;
    EXPECT_NE(message.find(mesh.object), std::string::npos) << message;
    EXPECT_EQ(loaded.ids, nullptr);
    EXPECT_EQ(loaded.n, 0);
    gsr_mesh_free(&loaded);
  }
  gsr_set_error_mode(previous);
}

TEST_F(BadFiles, RanksAskingForDifferentFilesAllFail) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string path = dir_->file(rank == 0 ? "a.h5" : "b.h5");
  try {
    (void)gsr::read_mesh(path, MPI_COMM_WORLD);
    ADD_FAILURE() << "different files were read without error";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), gsr::ErrorCode::mismatch) << e.what();
    EXPECT_NE(std::string(e.what()).find("disagree"), std::string::npos) << e.what();
  }
}

TEST(CMeshLoader, RejectsBadArgumentsInReturnMode) {
  const int previous = gsr_get_error_mode();
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  gsr_mesh mesh;
  EXPECT_EQ(gsr_mesh_load(nullptr, MPI_COMM_WORLD, GSR_MESH_BLOCKS, 1, &mesh), GSR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(gsr_mesh_load("x.h5", MPI_COMM_WORLD, 7, 1, &mesh), GSR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gsr_last_error_message()).find("distribution 7"), std::string::npos);
  EXPECT_EQ(gsr_mesh_load("x.h5", MPI_COMM_WORLD, GSR_MESH_BLOCKS, 1, nullptr), GSR_ERR_INVALID_ARGUMENT);
  gsr_mesh_free(nullptr);
  gsr_set_error_mode(previous);
}

}  // namespace
