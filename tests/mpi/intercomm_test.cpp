// An intercommunicator is refused by every collective entry point, on every rank of both
// groups, with an error naming it — not summed across the groups (gs), not answered with
// the other group's blocks (scatter), not a raw MPI error (transfer), and never a hang
// (E-COMM-INTER).
#include <gsr/gs.h>
#include <gsr/handle.hpp>
#include <gsr/scatter_gather.hpp>
#include <gsr/transfer.h>
#include <gsr/transfer.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

// Two groups, the lower half of MPI_COMM_WORLD's ranks and the upper half.
class Intercomm : public ::testing::Test {
protected:
  void SetUp() override {
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ASSERT_GE(size, 2) << "needs two groups";
    const int half = size / 2;
    const int upper = rank >= half ? 1 : 0;
    MPI_Comm_split(MPI_COMM_WORLD, upper, rank, &group);
    ASSERT_EQ(MPI_Intercomm_create(group, 0, MPI_COMM_WORLD, upper ? 0 : half, 77, &inter), MPI_SUCCESS);
    int flag = 0;
    MPI_Comm_test_inter(inter, &flag);
    ASSERT_TRUE(flag);
    ids = {1, 2, 3 + rank};
  }
  void TearDown() override {
    MPI_Comm_free(&inter);
    MPI_Comm_free(&group);
  }

  template <class Call>
  void expect_refused(Call&& call, const char* what) {
    try {
      call();
      ADD_FAILURE() << what << " accepted an intercommunicator";
    } catch (const gsr::Error& e) {
      EXPECT_EQ(e.code(), gsr::ErrorCode::invalid_argument) << what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("intercommunicator"), std::string::npos) << what << ": " << e.what();
    }
  }

  MPI_Comm group = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  std::vector<std::int64_t> ids;
};

TEST_F(Intercomm, CoreCallsRefuseIt) {
  expect_refused([&] { gsr::Handle h(ids, inter); }, "Handle setup");
  expect_refused([&] { gsr::make_unique(ids, inter); }, "make_unique");
  const std::vector<int> records = {1, 2};
  const std::vector<int> destinations = {0, 0};
  expect_refused([&] { gsr::transfer(records, destinations, inter); }, "transfer");
  const std::vector<std::size_t> counts(2, 1);
  expect_refused([&] { gsr::scatter(records, counts, 0, inter); }, "scatter");
  expect_refused([&] { gsr::gather(records, 0, inter); }, "gather");
}

TEST_F(Intercomm, CCallsRefuseIt) {
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  struct comm c;
  comm_init(&c, inter);
  std::vector<slong> c_ids(ids.begin(), ids.end());
  struct gs_data* h = gs_setup(c_ids.data(), static_cast<uint>(c_ids.size()), &c, 0, gs_pairwise, 0);
  EXPECT_EQ(h, nullptr);
  EXPECT_EQ(gsr_last_error(), GSR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gsr_last_error_message()).find("intercommunicator"), std::string::npos)
      << gsr_last_error_message();
  comm_free(&c);

  const int records[2] = {1, 2}, destinations[2] = {0, 0};
  void* received = nullptr;
  int* sources = nullptr;
  size_t received_count = 0;
  EXPECT_EQ(
      gsr_transfer(records, 2, sizeof(int), destinations, inter, 0, &received, &sources, &received_count, nullptr),
      GSR_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gsr_last_error_message()).find("intercommunicator"), std::string::npos)
      << gsr_last_error_message();
  void* block = nullptr;
  size_t count = 0;
  const std::int64_t counts[2] = {1, 1};
  EXPECT_EQ(gsr_scatter(records, counts, sizeof(int), 0, inter, &block, &count, nullptr), GSR_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(block, nullptr);
  void* blocks = nullptr;
  std::int64_t* gathered_counts = nullptr;
  EXPECT_EQ(gsr_gather(records, 1, sizeof(int), 0, inter, &blocks, &gathered_counts, nullptr),
            GSR_ERR_INVALID_ARGUMENT);
  gsr_clear_error();
  gsr_set_error_mode(GSR_ERRORS_ABORT);
}

}  // namespace
