// Ranks that disagree about one gs call, through the C interface in GSR_ERRORS_RETURN mode:
// the rank with the odd argument gets an error, the others an error or a normal return, and
// nobody hangs (the ctest timeout catches a hang). Needs P >= 2.
#include <gsr/gs.h>

#include "capi.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

namespace {

using gsr_test::MethodCase;

class CapiBadCollective : public gsr_test::CapiTest<::testing::TestWithParam<MethodCase>> {
protected:
  void SetUp() override {
    CapiTest::SetUp();
    ASSERT_GE(comm.np, 2u) << "needs ranks to disagree";
    set_up_shared_ids(GetParam().code);
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
};

TEST_P(CapiBadCollective, OneRankUsesAnotherOp) {
  std::vector<double> v = {1.0, 2.0, 3.0};
  gs(v.data(), gs_double, odd() ? gs_min : gs_add, 0, h, nullptr);
  expect_outcome("gs_min on the last rank, gs_add elsewhere");
}

TEST_P(CapiBadCollective, OneRankUsesAnotherDom) {
  std::vector<slong> big = {1, 2, 3};
  std::vector<sint> small = {1, 2, 3};
  if (odd())
    gs(small.data(), gs_sint, gs_add, 0, h, nullptr);
  else
    gs(big.data(), gs_slong, gs_add, 0, h, nullptr);
  expect_outcome("gs_sint on the last rank, gs_slong elsewhere");
}

INSTANTIATE_TEST_SUITE_P(Methods, CapiBadCollective, ::testing::ValuesIn(gsr_test::concrete_method_cases()),
                         gsr_test::method_case_name);

}  // namespace
