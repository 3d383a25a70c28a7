// Setup on MPI_COMM_NULL is a clear gsr::Error naming the communicator, not an MPI abort.
// Its own program: if the library lets MPI abort, the other bad-input tests still report.
#include <gsr/handle.hpp>

#include "reference_errors.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

namespace {

TEST(BadSetup, NullCommunicator) {
  const std::vector<std::int64_t> ids = {1, 2, 3};
  gsr_test::expect_error([&] { gsr::Handle h(ids, MPI_COMM_NULL); }, gsr::ErrorCode::invalid_argument, {"comm"},
                         "setup on MPI_COMM_NULL");
}

TEST(BadSetup, MakeUniqueOnNullCommunicator) {
  std::vector<std::int64_t> ids = {1, 2, 3};
  gsr_test::expect_error([&] { gsr::make_unique(ids, MPI_COMM_NULL); }, gsr::ErrorCode::invalid_argument, {"comm"},
                         "make_unique on MPI_COMM_NULL");
  EXPECT_EQ(ids, (std::vector<std::int64_t>{1, 2, 3}));
}

}  // namespace
