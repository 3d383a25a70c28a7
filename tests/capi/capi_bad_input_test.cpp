// Bad input to the C interface in GSR_ERRORS_RETURN mode: the call returns (gs_setup returns
// NULL), gsr_last_error() gives the code docs/c-api.md lists and gsr_last_error_message() names the
// function and the problem; rejected data is left unchanged. Every rank passes the same bad
// argument here, except in the NULL-ids setup case, where one rank does and all must fail.
#include <gsr/gs.h>

#include "capi.hpp"
#include "reference_errors.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

namespace {

using gsr_test::mentions_any;

class CapiBadInput : public gsr_test::CapiTest<> {
protected:
  void SetUp() override {
    CapiTest::SetUp();
    set_up_shared_ids(gs_pairwise);
  }

  /// The last call failed with `code` and its message mentions one of `words`; then clear.
  void expect_failed(int code, std::initializer_list<const char*> words, const std::string& what) {
    EXPECT_EQ(gsr_last_error(), code) << what << ": message \"" << gsr_last_error_message() << "\"";
    EXPECT_TRUE(mentions_any(gsr_last_error_message(), words))
        << what << ": message \"" << gsr_last_error_message() << "\" does not name the problem";
    gsr_clear_error();
  }

  /// The handle still gives the right sum (ids 1 and 2 on every rank).
  void expect_still_works() {
    std::vector<double> v = {1.0, 2.0, 7.0};
    gs(v.data(), gs_double, gs_add, 0, h, nullptr);
    EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
    EXPECT_EQ(v[0], 1.0 * comm.np);
    EXPECT_EQ(v[1], 2.0 * comm.np);
    EXPECT_EQ(v[2], 7.0);
  }
};

TEST_F(CapiBadInput, ErrorModeAndClear) {
  EXPECT_EQ(gsr_get_error_mode(), GSR_ERRORS_RETURN);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS);
  EXPECT_STREQ(gsr_last_error_message(), "");
  std::vector<double> v = {1.0, 2.0, 3.0};
  gs(v.data(), gs_double, gs_bpr, 0, h, nullptr);
  EXPECT_NE(gsr_last_error(), GSR_SUCCESS);
  EXPECT_STRNE(gsr_last_error_message(), "");
  gsr_clear_error();
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS);
  EXPECT_STREQ(gsr_last_error_message(), "");
}

TEST_F(CapiBadInput, UnknownDomCode) {
  std::vector<double> v = {1.0, 2.0, 3.0};
  gs(v.data(), static_cast<gs_dom>(7), gs_add, 0, h, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"dom"}, "gs with dom 7");
  gs(v.data(), gs_dom_n, gs_add, 0, h, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"dom"}, "gs with dom gs_dom_n");
  gs_vec(v.data(), 1, static_cast<gs_dom>(-1), gs_add, 0, h, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"dom"}, "gs_vec with dom -1");
  EXPECT_EQ(v, (std::vector<double>{1.0, 2.0, 3.0})) << "data changed by a rejected call";
  expect_still_works();
}

TEST_F(CapiBadInput, UnknownOpCode) {
  std::vector<double> v = {1.0, 2.0, 3.0};
  gs(v.data(), gs_double, static_cast<gs_op>(9), 0, h, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"op"}, "gs with op 9");
  void* arrays[1] = {v.data()};
  gs_many(arrays, 1, gs_double, gs_op_n, 1, h, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"op"}, "gs_many with op gs_op_n");
  EXPECT_EQ(v, (std::vector<double>{1.0, 2.0, 3.0})) << "data changed by a rejected call";
  expect_still_works();
}

TEST_F(CapiBadInput, BprOnFloatingData) {
  std::vector<double> v = {1.0, 2.0, 3.0};
  gs(v.data(), gs_double, gs_bpr, 0, h, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"bpr"}, "gs bpr double");
  std::vector<float> f = {1.0f, 2.0f, 3.0f};
  gs(f.data(), gs_float, gs_bpr, 1, h, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"bpr"}, "gs bpr float");
  EXPECT_EQ(v, (std::vector<double>{1.0, 2.0, 3.0}));
  // bpr on integers is fine.
  std::vector<sint> s = {5, 6, 7};
  gs(s.data(), gs_sint, gs_bpr, 0, h, nullptr);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  EXPECT_EQ(s[0], 5);
  EXPECT_EQ(s[1], 6);
  expect_still_works();
}

TEST_F(CapiBadInput, NullData) {
  gs(nullptr, gs_double, gs_add, 0, h, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"null"}, "gs with u = NULL");
  gs_vec(nullptr, 2, gs_long, gs_max, 0, h, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"null"}, "gs_vec with u = NULL");
  gs_many(nullptr, 2, gs_double, gs_add, 0, h, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"null"}, "gs_many with u = NULL");
  std::vector<double> a = {1.0, 2.0, 3.0};
  void* arrays[2] = {a.data(), nullptr};
  gs_many(arrays, 2, gs_double, gs_add, 0, h, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"null"}, "gs_many with u[1] = NULL");
  int request = -1;
  igs(nullptr, gs_double, gs_add, 0, h, nullptr, &request);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"null"}, "igs with u = NULL");
  expect_still_works();
}

TEST_F(CapiBadInput, NullHandle) {
  std::vector<double> v = {1.0, 2.0, 3.0};
  gs(v.data(), gs_double, gs_add, 0, nullptr, nullptr);
  const int code = gsr_last_error();
  EXPECT_TRUE(code == GSR_ERR_STATE || code == GSR_ERR_INVALID_ARGUMENT) << gsr_last_error_message();
  EXPECT_TRUE(mentions_any(gsr_last_error_message(), {"handle", "gsh", "null"})) << gsr_last_error_message();
  gsr_clear_error();
}

TEST_F(CapiBadInput, GsAfterGsFree) {
  gs_free(h);
  struct gs_data* freed = h;
  h = nullptr;
  std::vector<double> v = {1.0, 2.0, 3.0};
  gs(v.data(), gs_double, gs_add, 0, freed, nullptr);
  expect_failed(GSR_ERR_STATE, {"handle", "free"}, "gs after gs_free");
  EXPECT_EQ(v, (std::vector<double>{1.0, 2.0, 3.0}));
}

// A pointer kept after gs_free is refused even when a handle set up since lives at the
// address the freed one had (malloc hands a freed block of the same size straight back),
// and the new handle is untouched by the refused call.
TEST_F(CapiBadInput, StaleHandleAfterNewSetup) {
  struct gs_data* const stale = h;
  gs_free(h);
  h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, gs_pairwise, 0);
  ASSERT_NE(h, nullptr) << gsr_last_error_message();
  std::vector<double> v = {1.0, 2.0, 3.0};
  gs(v.data(), gs_double, gs_add, 0, stale, nullptr);
  expect_failed(GSR_ERR_STATE, {"freed"}, "gs with a handle freed before the current one was set up");
  EXPECT_EQ(v, (std::vector<double>{1.0, 2.0, 3.0})) << "data changed by a rejected call";
  gs_free(stale);
  expect_failed(GSR_ERR_STATE, {"freed"}, "gs_free of a stale handle");
  EXPECT_STREQ(gsr_method_name(stale), "");
  expect_failed(GSR_ERR_STATE, {"freed"}, "gsr_method_name of a stale handle");
  expect_still_works();
}

TEST_F(CapiBadInput, UnknownMethodCode) {
  struct gs_data* bad = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, static_cast<gs_method>(9), 0);
  EXPECT_EQ(bad, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"method"}, "gs_setup with method 9");
  expect_still_works();
}

TEST_F(CapiBadInput, BadWaitHandle) {
  gs_wait(12345);
  const int code = gsr_last_error();
  EXPECT_TRUE(code == GSR_ERR_STATE || code == GSR_ERR_INVALID_ARGUMENT) << gsr_last_error_message();
  EXPECT_STRNE(gsr_last_error_message(), "");
  gsr_clear_error();
}

TEST_F(CapiBadInput, NullComm) {
  struct gs_data* bad = gs_setup(ids.data(), static_cast<uint>(ids.size()), nullptr, 0, gs_pairwise, 0);
  EXPECT_EQ(bad, nullptr);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"comm"}, "gs_setup with comm = NULL");
}

// One rank (the last) passes NULL ids with n > 0: every rank's gs_setup fails, none hangs.
TEST_F(CapiBadInput, NullIdsOnOneRank) {
  const bool odd = comm.id == comm.np - 1;
  struct gs_data* bad = gs_setup(odd ? nullptr : ids.data(), static_cast<uint>(ids.size()), &comm, 0, gs_pairwise, 0);
  EXPECT_EQ(bad, nullptr) << "rank " << comm.id;
  if (odd) {
    expect_failed(GSR_ERR_INVALID_ARGUMENT, {"null"}, "gs_setup with id = NULL");
  } else {
    EXPECT_NE(gsr_last_error(), GSR_SUCCESS) << "rank " << comm.id << " was not told of the failure";
    gsr_clear_error();
  }
  if (bad != nullptr) gs_free(bad);
  expect_still_works();
}

TEST_F(CapiBadInput, GsUniqueWithNullIds) {
  gs_unique(nullptr, 3, &comm);
  expect_failed(GSR_ERR_INVALID_ARGUMENT, {"null"}, "gs_unique with id = NULL");
}

// n = 0 with NULL pointers is not an error.
using CapiEmpty = gsr_test::CapiTest<>;

TEST_F(CapiEmpty, NullPointersWithNoEntries) {
  h = gs_setup(nullptr, 0, &comm, 0, gs_pairwise, 0);
  ASSERT_NE(h, nullptr) << gsr_last_error_message();
  gs(nullptr, gs_double, gs_add, 0, h, nullptr);
  gs_vec(nullptr, 3, gs_int, gs_min, 1, h, nullptr);
  void* arrays[2] = {nullptr, nullptr};
  gs_many(arrays, 2, gs_long, gs_bpr, 0, h, nullptr);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
}

}  // namespace
