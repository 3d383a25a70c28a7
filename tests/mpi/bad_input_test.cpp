// Bad input to the C++ handle that every rank passes alike: each call throws gsr::Error with
// the right code and a message naming the problem, leaves the data alone, and the handle keeps
// working afterwards.
#include <gsr/handle.hpp>

#include "method_param.hpp"
#include "world.hpp"
#include "reference.hpp"
#include "reference_errors.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

namespace {

using gsr::Domain;
using gsr::ErrorCode;
using gsr::Op;
using gsr::Transpose;
using gsr_test::expect_error;

using gsr_test::world_rank;

/// Every rank holds ids 1 and 2 (shared by all) and one id of its own.
std::vector<std::int64_t> my_ids() { return {1, 2, 10 + world_rank()}; }
std::vector<double> my_values() {
  const double r = world_rank();
  return {1.0 + r, 2.0 * (r + 1), 5.0};
}

/// The handle still gives the right sum after an error.
void expect_still_works(gsr::Handle& h) {
  std::vector<double> v = my_values();
  h.apply(std::span<double>(v), Op::add);
  const std::vector<double> input = my_values();
  const std::vector<double> want =
      gsr_test::expected<double>(my_ids(), input, 1, Op::add, Transpose::no, MPI_COMM_WORLD);
  EXPECT_EQ(v, want) << "the handle no longer works after an error";
}

class BadInput : public ::testing::TestWithParam<gsr::Method> {
protected:
  gsr::Handle make() { return gsr::Handle(my_ids(), MPI_COMM_WORLD, gsr_test::with_method(GetParam())); }
};

TEST_P(BadInput, BprOnFloatingData) {
  gsr::Handle h = make();
  std::vector<double> v = my_values();
  expect_error([&] { h.apply(std::span<double>(v), Op::bpr); }, ErrorCode::invalid_argument, {"bpr"}, "bpr on double");
  EXPECT_EQ(v, my_values()) << "data changed by a rejected call";
  std::vector<float> f = {1.0f, 2.0f, 3.0f};
  expect_error([&] { h.apply(std::span<float>(f), Op::bpr, Transpose::yes); }, ErrorCode::invalid_argument, {"bpr"},
               "bpr on float");
  std::vector<double> w(6, 1.0);
  expect_error([&] { h.apply_vec(std::span<double>(w), 2, Op::bpr); }, ErrorCode::invalid_argument, {"bpr"},
               "bpr on double (vec)");
  expect_still_works(h);
}

TEST_P(BadInput, TransposeOutOfRange) {
  gsr::Handle h = make();
  std::vector<double> v = my_values();
  expect_error([&] { h.apply(std::span<double>(v), Op::add, static_cast<Transpose>(2)); }, ErrorCode::invalid_argument,
               {"transpose"}, "transpose = 2");
  EXPECT_EQ(v, my_values()) << "data changed by a rejected call";
  expect_still_works(h);
}

// The many layout's array of pointers is the caller's to reuse once start_many returns.
TEST_P(BadInput, ManyPointerArrayMayGoAwayBeforeWait) {
  gsr::Handle h = make();
  std::vector<double> a = my_values(), b = my_values();
  for (double& x : b) x *= 3;
  gsr::Request request;
  {
    std::vector<double*> arrays = {a.data(), b.data()};
    request = h.start_many(std::span<double* const>(arrays), Op::add);
    arrays.assign(2, nullptr);
  }
  request.wait();
  std::vector<double> b_input = my_values();
  for (double& x : b_input) x *= 3;
  EXPECT_EQ(a, gsr_test::expected<double>(my_ids(), my_values(), 1, Op::add, Transpose::no, MPI_COMM_WORLD));
  EXPECT_EQ(b, gsr_test::expected<double>(my_ids(), b_input, 1, Op::add, Transpose::no, MPI_COMM_WORLD));
}

// A rank without entries may pass no arrays at all.
TEST_P(BadInput, ManyWithoutEntriesNeedsNoArrays) {
  gsr::Handle empty(std::vector<std::int64_t>{}, MPI_COMM_WORLD, gsr_test::with_method(GetParam()));
  EXPECT_NO_THROW(empty.apply_many(static_cast<void* const*>(nullptr), 2, Domain::float64, Op::add, Transpose::no));
}

TEST_P(BadInput, NullDataWithEntries) {
  gsr::Handle h = make();
  expect_error([&] { h.apply_vec(static_cast<void*>(nullptr), 3, 1, Domain::float64, Op::add, Transpose::no); },
               ErrorCode::invalid_argument, {"null"}, "NULL data");
  double* none[2] = {nullptr, nullptr};
  expect_error([&] { h.apply_many(std::span<double* const>(none, 2), Op::add); }, ErrorCode::invalid_argument, {"null"},
               "NULL arrays in many");
  expect_error([&] { h.apply_many(static_cast<void* const*>(nullptr), 2, Domain::float64, Op::add, Transpose::no); },
               ErrorCode::invalid_argument, {"null"}, "NULL array list in many");
  expect_still_works(h);
}

TEST_P(BadInput, LengthNotMatchingEntries) {
  gsr::Handle h = make();
  std::vector<double> v = my_values();
  expect_error([&] { h.apply(std::span<double>(v.data(), v.size() - 1), Op::add); }, ErrorCode::invalid_argument,
               {"length", "size", "values", "n * k"}, "length n - 1");
  std::vector<double> longer(v.size() + 1, 1.0);
  expect_error([&] { h.apply(std::span<double>(longer), Op::max); }, ErrorCode::invalid_argument,
               {"length", "size", "values", "n * k"}, "length n + 1");
  std::vector<std::int32_t> w(3 * v.size());
  expect_error([&] { h.apply_vec(std::span<std::int32_t>(w), 2, Op::add); }, ErrorCode::invalid_argument,
               {"length", "size", "values", "n * k"}, "length 3n with k = 2");
  expect_still_works(h);
}

TEST_P(BadInput, UnknownOpAndDomainCodes) {
  gsr::Handle h = make();
  std::vector<double> v = my_values();
  expect_error([&] { h.apply(std::span<double>(v), static_cast<Op>(17)); }, ErrorCode::invalid_argument, {"op"},
               "op code 17");
  expect_error([&] { h.apply_vec(v.data(), v.size(), 1, static_cast<Domain>(9), Op::add, Transpose::no); },
               ErrorCode::invalid_argument, {"dom"}, "domain code 9");
  EXPECT_EQ(v, my_values()) << "data changed by a rejected call";
  expect_still_works(h);
}

TEST_P(BadInput, MovedFromHandle) {
  gsr::Handle h = make();
  gsr::Handle other = std::move(h);
  std::vector<double> v = my_values();
  expect_error([&] { h.apply(std::span<double>(v), Op::add); }, ErrorCode::state, {"handle"},
               "apply on a moved-from handle");
  expect_still_works(other);
}

INSTANTIATE_TEST_SUITE_P(Methods, BadInput, ::testing::ValuesIn(gsr::registered_methods()), gsr_test::method_name);

TEST(BadSetup, UnknownMethodCode) {
  gsr::SetupOptions o;
  o.method = static_cast<gsr::Method>(9);
  expect_error([&] { gsr::Handle h(my_ids(), MPI_COMM_WORLD, o); }, ErrorCode::invalid_argument, {"method"},
               "method code 9");
}

}  // namespace
