// twin_test.cpp — a method added by a test build (twin_method.hpp) is picked up by what
// lists methods: the registry's names, a setup that names it, the method table, auto's
// candidates and the cost model. The method-parameterized tests linked into this program
// run it as one of theirs (copy consistency, the simulation against the handle), and
// gsr-check built with it takes --method twin (CMakeLists.txt).
#include "twin_method.hpp"

#include "tune/cost_model.hpp"

#include <gsr/error.hpp>
#include <gsr/handle.hpp>

#include "world.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace {

using gsr::Method;

/// Ids shared around a ring of ranks: rank r holds 10 + r and 10 + r + 1 (mod P), and one id
/// of its own.
std::vector<std::int64_t> ring_ids() {
  const int p = gsr_test::world_size(), r = gsr_test::world_rank();
  return {10 + r, 10 + (r + 1) % p, 1000 + r};
}

void expect_error(const std::function<void()>& call, gsr::ErrorCode code, const std::string& words) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one saying \"" << words << "\"";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(Twin, TheRegistryListsItAfterTheBuiltInMethods) {
  const auto methods = gsr::registered_methods();
  // The built-in methods keep their codes and order: the C and Fortran ABI.
  const Method built_in[] = {Method::pairwise, Method::crystal_router, Method::allreduce, Method::neighbor};
  ASSERT_EQ(methods.size(), std::size(built_in) + 1);
  for (std::size_t i = 0; i < std::size(built_in); ++i) EXPECT_EQ(methods[i], built_in[i]) << i;
  EXPECT_EQ(methods.back(), twin::method);
  EXPECT_EQ(gsr::to_string(twin::method), "twin");
  EXPECT_EQ(gsr::method_from_string("twin"), twin::method);
}

TEST(Twin, ATakenCodeOrNameOrALateMethodIsRefused) {
  using gsr::detail::BuiltExchange;
  using gsr::detail::register_method;
  auto* const build =
      +[](const gsr::detail::ExchangeInputs&, const gsr::detail::ExchangeLimits&) { return BuiltExchange{}; };
  const auto other = static_cast<Method>(10);
  expect_error(
      [&] {
        register_method({twin::method, "other", build, {}});
      },
      gsr::ErrorCode::invalid_argument, "taken by 'twin'");
  expect_error(
      [&] {
        register_method({other, "neighbor", build, {}});
      },
      gsr::ErrorCode::invalid_argument, "taken by 'neighbor'");
  for (const gsr::detail::MethodEntry& bad :
       {gsr::detail::MethodEntry{other, "auto", build, {}},
        gsr::detail::MethodEntry{Method::automatic, "zero", build, {}}, gsr::detail::MethodEntry{other, "", build, {}},
        gsr::detail::MethodEntry{other, "unbuilt", nullptr, {}}})
    expect_error([&] { register_method(bad); }, gsr::ErrorCode::invalid_argument, "a method needs a code");
  // Once the registry has been read, nothing more may join.
  (void)gsr::registered_methods();
  expect_error(
      [&] {
        register_method({other, "late", build, {}});
      },
      gsr::ErrorCode::state, "register methods before any setup");
  EXPECT_EQ(gsr::registered_methods().size(), 5u);
}

TEST(Twin, ASetupNamesItByCodeOrByTable) {
  gsr::SetupOptions by_code;
  by_code.method = twin::method;
  EXPECT_EQ(gsr::Handle(ring_ids(), MPI_COMM_WORLD, by_code).stats().method, twin::method);
  gsr::SetupOptions by_table;
  by_table.method_table = "twin";
  EXPECT_EQ(gsr::Handle(ring_ids(), MPI_COMM_WORLD, by_table).stats().method, twin::method);
  // The names a bad table is told of come from the registry too.
  by_table.method_table = "fastest";
  expect_error([&] { gsr::Handle(ring_ids(), MPI_COMM_WORLD, by_table); }, gsr::ErrorCode::invalid_argument,
               "neighbor or twin");
}

TEST(Twin, AutoPredictsAndMeasuresIt) {
  const gsr::Handle h(ring_ids(), MPI_COMM_WORLD);
  const std::vector<gsr::MethodTiming>& timings = h.stats().auto_timings;
  const auto found =
      std::find_if(timings.begin(), timings.end(), [](const gsr::MethodTiming& t) { return t.method == twin::method; });
  ASSERT_NE(found, timings.end()) << "auto left the twin out";
  // Run at P = 2 and 3 (CMakeLists.txt): ids are shared, so every candidate is predicted,
  // and the twin, one alpha behind pairwise, is never hopeless: it is timed.
  EXPECT_GT(found->predicted_seconds, 0.0);
  EXPECT_GE(found->seconds_per_call, 0.0) << found->note;
}

TEST(Twin, TheCostModelAddsItsOwnTerms) {
  const gsr::detail::CostModel model;  // the defaults: alpha 2 us
  const std::vector<gsr::StageStats> stages{{2, 100}};
  // One collective more than pairwise, which has the same messages.
  EXPECT_DOUBLE_EQ(model.predict(twin::method, stages, 8, 1, 1000),
                   model.predict(Method::pairwise, stages, 8, 1, 1000) + model.alpha);
  // Nothing shared: no stages, no collective.
  EXPECT_DOUBLE_EQ(model.predict(twin::method, {}, 8, 1, 1000), model.predict(Method::pairwise, {}, 8, 1, 1000));
}

}  // namespace
