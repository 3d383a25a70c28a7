// hostile_files_test.cpp — the loader against damage beyond the bad-file corpus (run at
// P = 2): a flipped superblock byte that once left rank 0 in a barrier and rank 1 inside
// HDF5's collective open, and a file declaring more elements than memory holds (and than
// it stores). Each is an io error on every rank, naming the file; nothing hangs.
#include "bad_meshes.hpp"
#include "scratch_dir.hpp"

#include <gsr/mesh.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

namespace {

using gsr::testing::ScratchDir;

/// A copy of `source` with byte `offset` xor-ed with `mask` (rank 0 writes it).
void write_flipped_copy(const std::string& source, const std::string& target, std::size_t offset, unsigned char mask) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::ifstream in(source, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(bytes.size(), offset);
    bytes[offset] = static_cast<char>(static_cast<unsigned char>(bytes[offset]) ^ mask);
    std::ofstream(target, std::ios::binary) << bytes;
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/// Reads `path` on every rank and expects an io error naming it and saying `problem`.
void expect_io_error(const std::string& path, const std::string& problem) {
  try {
    (void)gsr::read_mesh(path, MPI_COMM_WORLD);
    ADD_FAILURE() << path << ": loaded without error";
  } catch (const gsr::Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), gsr::ErrorCode::io) << message;
    EXPECT_NE(message.find("file '" + path + "'"), std::string::npos) << message;
    EXPECT_NE(message.find(problem), std::string::npos) << message;
  }
}

TEST(HostileFiles, FlippedSuperblockByteFailsOnEveryRankWithoutHanging) {
  ScratchDir dir("gsr-hostile-superblock");
  const std::string path = dir.file("flipped.h5");
  write_flipped_copy(GSR_SOURCE_DIR "/meshes/two_element.h5", path, 33, 0xff);
  expect_io_error(path, "HDF5 cannot open");
}

// The shape claims 2^40 elements; the file stores none of their chunks. The loader (and
// gsr-check, in tests/tools) must say so before sizing any buffer by the claim: allocating
// first aborted sanitized builds (a request larger than any allocator serves).
const std::string huge_claim =
    "dataset '/mesh/global_ids': has shape [1099511627776, 9], 1073741824 chunks of [1024, 9], but the file "
    "stores only 0 of them";

TEST(HostileFiles, MoreElementsThanStoredIsAnIoErrorWithTheNumbers) {
  ScratchDir dir("gsr-hostile-huge");
  const std::string path = dir.file("huge.h5");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) gsr::testing::write_huge_mesh(path);
  MPI_Barrier(MPI_COMM_WORLD);
  expect_io_error(path, huge_claim);
}

TEST(HostileFiles, MeshInfoReportsTheMissingData) {
  ScratchDir dir("gsr-hostile-huge-info");
  const std::string path = dir.file("huge.h5");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) gsr::testing::write_huge_mesh(path);
  MPI_Barrier(MPI_COMM_WORLD);
  try {
    (void)gsr::read_mesh_info(path, MPI_COMM_WORLD);
    ADD_FAILURE() << path << ": its description loaded without error";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), gsr::ErrorCode::io) << e.what();
    EXPECT_NE(std::string(e.what()).find(huge_claim), std::string::npos) << e.what();
  }
}

}  // namespace
