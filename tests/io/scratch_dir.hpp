// scratch_dir.hpp — a directory for one MPI test run's files: made by rank 0 under the
// test's build folder (GSR_TEST_BINARY_DIR, defined by gsr_add_mpi_gtest in
// tests/CMakeLists.txt), named after rank 0's pid, shared by all ranks, removed at the end
// of the run.
#pragma once

#ifndef GSR_TEST_BINARY_DIR
#error "GSR_TEST_BINARY_DIR must name the build folder the test writes in"
#endif

#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace gsr::testing {

class ScratchDir {
public:
  explicit ScratchDir(const std::string& prefix, MPI_Comm comm = MPI_COMM_WORLD) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    long long pid = rank_ == 0 ? static_cast<long long>(getpid()) : 0;
    MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, comm_);
    path_ = (std::filesystem::path(GSR_TEST_BINARY_DIR) / "scratch" / (prefix + "-" + std::to_string(pid))).string();
    if (rank_ == 0) std::filesystem::create_directories(path_);
    MPI_Barrier(comm_);
  }
  ~ScratchDir() {
    MPI_Barrier(comm_);
    std::error_code ignored;
    if (rank_ == 0) std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
  MPI_Comm comm_;
  int rank_ = 0;
  std::string path_;
};

}  // namespace gsr::testing
