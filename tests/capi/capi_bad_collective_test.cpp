// Ranks that disagree about one gs call, through the C interface in GSR_ERRORS_RETURN mode:
// the rank with the odd argument gets an error, the others an error or a normal return, and
// nobody hangs (the ctest timeout catches a hang). Needs P >= 2.
#include <gsr/gs.h>

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

namespace {

class CapiBadCollective : public ::testing::TestWithParam<gs_method> {
protected:
  void SetUp() override {
    comm_init(&comm, MPI_COMM_WORLD);
    ASSERT_GE(comm.np, 2u) << "needs ranks to disagree";
    gsr_set_error_mode(GSR_ERRORS_RETURN);
    gsr_clear_error();
    ids = {1, 2, 10 + static_cast<slong>(comm.id)};
    h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, GetParam(), 0);
    ASSERT_NE(h, nullptr) << gsr_last_error_message();
  }
  void TearDown() override {
    if (h != nullptr) gs_free(h);
    gsr_set_error_mode(GSR_ERRORS_ABORT);
    comm_free(&comm);
  }
  bool odd() const { return comm.id == comm.np - 1; }

  void expect_outcome(const std::string& what) {
    const int code = gsr_last_error();
    if (odd()) {
      EXPECT_NE(code, GSR_SUCCESS) << what << ": the rank with the odd argument got no error";
    }
    if (code != GSR_SUCCESS) {
      EXPECT_TRUE(code == GSR_ERR_MISMATCH || code == GSR_ERR_REMOTE)
          << what << ": rank " << comm.id << " code " << code << ": " << gsr_last_error_message();
      EXPECT_STRNE(gsr_last_error_message(), "") << what;
    }
    gsr_clear_error();
  }

  struct comm comm;
  std::vector<slong> ids;
  struct gs_data* h = nullptr;
};

TEST_P(CapiBadCollective, OneRankUsesAnotherOp) {
  std::vector<double> v = {1.0, 2.0, 3.0};
  gs(v.data(), gs_double, odd() ? gs_min : gs_add, 0, h, nullptr);
  expect_outcome("gs_min on the last rank, gs_add elsewhere");
}

TEST_P(CapiBadCollective, OneRankUsesAnotherDom) {
  std::vector<slong> big = {1, 2, 3};
  std::vector<sint> small = {1, 2, 3};
  if (odd()) gs(small.data(), gs_sint, gs_add, 0, h, nullptr);
  else gs(big.data(), gs_slong, gs_add, 0, h, nullptr);
  expect_outcome("gs_sint on the last rank, gs_slong elsewhere");
}

std::string method_name(const ::testing::TestParamInfo<gs_method>& info) {
  switch (info.param) {
    case gs_pairwise: return "pairwise";
    case gs_crystal_router: return "crystal_router";
    case gs_all_reduce: return "allreduce";
    default: return "auto";
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, CapiBadCollective,
                         ::testing::Values(gs_pairwise, gs_crystal_router, gs_all_reduce), method_name);

}  // namespace
