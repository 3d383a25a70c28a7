// Method selection: auto makes one choice on every rank and reports what it measured;
// GSR_METHOD overrides auto (and only auto); an unknown name is a clear error on every rank;
// the statistics describe each method's messages (ceil(log2 P) stages for the crystal
// router); allreduce steps aside when its dense array would be too large.
#include "methods_support.hpp"

#include "exchange/registry.hpp"
#include "plan/plan.hpp"
#include "setup/discovery.hpp"

#include <cstdlib>

namespace {

using gsr::Method;
using gsr::Op;
using gsr::Transpose;
using methods_test::PerRank;
using methods_test::world_rank;
using methods_test::world_size;

int ceil_log2(int p) {
  int d = 0;
  while ((1 << d) < p) ++d;
  return d;
}

/// Sets GSR_METHOD for the lifetime of the object, then removes it.
struct ScopedMethodVariable {
  explicit ScopedMethodVariable(const char* value) { setenv("GSR_METHOD", value, 1); }
  ~ScopedMethodVariable() { unsetenv("GSR_METHOD"); }
};

/// Ids every rank shares with its neighbours in a ring, plus a few of its own.
std::vector<std::int64_t> ring_ids() {
  const int rank = world_rank(), ranks = world_size();
  std::vector<std::int64_t> ids;
  for (int j = 0; j < 4; ++j) {
    ids.push_back(1 + 4 * rank + j);                  // shared with the previous rank
    ids.push_back(1 + 4 * ((rank + 1) % ranks) + j);  // shared with the next rank
    ids.push_back(100000 + 10 * rank + j);            // this rank's own
  }
  return ids;
}

void expect_apply_matches_reference(gsr::Handle& h, const std::vector<std::int64_t>& ids, const std::string& label) {
  std::vector<double> v(ids.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.1 * static_cast<double>(i + 1) + world_rank();
  const std::vector<double> want = gsr_test::expected<double>(ids, v, 1, Op::add, Transpose::no, MPI_COMM_WORLD);
  h.apply(std::span<double>(v), Op::add);
  methods_test::expect_bitwise(want, v, label);
}

TEST(Auto, SameChoiceOnEveryRankWithItsMeasurements) {
  unsetenv("GSR_METHOD");
  const std::vector<std::int64_t> ids = ring_ids();
  gsr::Handle h(ids, MPI_COMM_WORLD);
  const gsr::Stats& st = h.stats();

  const int mine = static_cast<int>(st.method);
  const PerRank<int> all = gsr_test::allgather<int>(std::span<const int>(&mine, 1), MPI_COMM_WORLD);
  for (const auto& r : all) EXPECT_EQ(r[0], mine) << "ranks chose different methods";
  EXPECT_NE(st.method, Method::automatic);
  EXPECT_EQ(st.method_reason.rfind("auto:", 0), 0u) << st.method_reason;

  ASSERT_EQ(st.auto_timings.size(), std::size(gsr::concrete_methods));
  if (world_size() == 1) {
    EXPECT_EQ(st.method, Method::pairwise) << "a single rank has nothing to exchange";
  } else {
    EXPECT_GT(st.auto_seconds, 0.0);
    EXPECT_LE(st.auto_seconds, st.setup_seconds);
    bool winner_measured = false;
    for (const gsr::MethodTiming& t : st.auto_timings) {
      // The measurements are maxima over ranks, so every rank holds the same numbers.
      const double seconds = t.seconds_per_call;
      const PerRank<double> everywhere = gsr_test::allgather<double>(std::span<const double>(&seconds, 1), MPI_COMM_WORLD);
      for (const auto& r : everywhere) EXPECT_EQ(r[0], seconds) << gsr::to_string(t.method);
      if (t.seconds_per_call >= 0) {
        EXPECT_GT(t.predicted_seconds, 0.0) << gsr::to_string(t.method);
        EXPECT_TRUE(t.note.empty()) << t.note;
      } else {
        EXPECT_FALSE(t.note.empty()) << "an unmeasured candidate must say why";
      }
      if (t.method == st.method) winner_measured = t.seconds_per_call >= 0;
      // Nothing here is too large for allreduce.
      if (t.method == Method::allreduce) EXPECT_EQ(t.note.find("excluded"), std::string::npos) << t.note;
    }
    EXPECT_TRUE(winner_measured);
    for (const gsr::MethodTiming& t : st.auto_timings)
      if (t.seconds_per_call >= 0) {
        const auto& winner = st.auto_timings[static_cast<std::size_t>(st.method) - 1];
        EXPECT_LE(winner.seconds_per_call, t.seconds_per_call) << "auto did not keep the fastest";
      }
  }
  EXPECT_NE(h.summary().find(std::string(gsr::to_string(st.method))), std::string::npos);
  expect_apply_matches_reference(h, ids, "auto's choice");
}

TEST(Auto, GsrMethodOverridesAutoForEveryName) {
  const std::vector<std::int64_t> ids = ring_ids();
  for (Method m : gsr::concrete_methods) {
    const ScopedMethodVariable variable(std::string(gsr::to_string(m)).c_str());
    gsr::Handle h(ids, MPI_COMM_WORLD);
    EXPECT_EQ(h.stats().method, m);
    EXPECT_NE(h.stats().method_reason.find("GSR_METHOD"), std::string::npos) << h.stats().method_reason;
    EXPECT_TRUE(h.stats().auto_timings.empty()) << "auto must not run when GSR_METHOD names a method";
    expect_apply_matches_reference(h, ids, "GSR_METHOD=" + std::string(gsr::to_string(m)));
  }
}

TEST(Auto, ExplicitMethodBeatsGsrMethod) {
  const ScopedMethodVariable variable("allreduce");
  gsr::Handle h(ring_ids(), MPI_COMM_WORLD, methods_test::with_method(Method::crystal_router));
  EXPECT_EQ(h.stats().method, Method::crystal_router);
}

TEST(Auto, UnknownGsrMethodIsAClearErrorOnEveryRank) {
  const ScopedMethodVariable variable("crystal");
  try {
    gsr::Handle h(ring_ids(), MPI_COMM_WORLD);
    ADD_FAILURE() << "GSR_METHOD=crystal was accepted";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), gsr::ErrorCode::invalid_argument) << e.what();
    const std::string message = e.what();
    EXPECT_NE(message.find("GSR_METHOD"), std::string::npos) << message;
    EXPECT_NE(message.find("crystal"), std::string::npos) << message;
    EXPECT_NE(message.find("crystal_router"), std::string::npos) << "should list the valid names: " << message;
  }
}

TEST(MethodStats, CrystalRouterHasCeilLog2StagesOfOneMessage) {
  gsr::Handle h(ring_ids(), MPI_COMM_WORLD, methods_test::with_method(Method::crystal_router));
  const gsr::Stats& st = h.stats();
  const int stages = static_cast<int>(st.stages.size());
  int most = 0;
  MPI_Allreduce(&stages, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(most, ceil_log2(world_size()));
  for (const gsr::StageStats& s : st.stages) EXPECT_EQ(s.messages, 1u);
  EXPECT_EQ(st.messages_per_call, st.stages.size());
  if (world_size() > 1) {
    EXPECT_GT(st.values_per_call, 0u);
    EXPECT_NE(h.summary().find("stage"), std::string::npos) << h.summary();
  }
}

TEST(MethodStats, PairwiseSendsOneMessagePerNeighbour) {
  gsr::Handle h(ring_ids(), MPI_COMM_WORLD, methods_test::with_method(Method::pairwise));
  const gsr::Stats& st = h.stats();
  // Ring: two neighbours (one when P = 2, none alone), 4 ids shared with each.
  const int neighbours = world_size() == 1 ? 0 : world_size() == 2 ? 1 : 2;
  EXPECT_EQ(st.neighbors, neighbours);
  EXPECT_EQ(st.messages_per_call, static_cast<std::size_t>(neighbours));
  EXPECT_EQ(st.values_per_call, static_cast<std::size_t>(world_size() == 2 ? 8 : 4 * neighbours));
}

TEST(MethodStats, AllreduceStepsAsideAboveItsSlotLimit) {
  using namespace gsr::detail;
  const std::vector<std::int64_t> ids = ring_ids();
  const std::vector<index_t> order = entries_by_id(ids);
  const Topology topo = discover(ids, order, MPI_COMM_WORLD);
  const Plan plan = build_plan(ids, order, topo, world_rank(), world_size());
  const ExchangeInputs inputs{plan, topo.holders, MPI_COMM_WORLD};
  // Ring: P blocks of 4 ids, each block held by 2 ranks (P = 2: both blocks by both ranks;
  // P = 1: nothing shared).
  const std::uint64_t slots = world_size() == 1 ? 0 : 8 * static_cast<std::uint64_t>(world_size());
  const BuiltExchange fits = build_exchange(Method::allreduce, inputs, ExchangeLimits{slots});
  ASSERT_TRUE(fits.exchange) << fits.unavailable;
  EXPECT_EQ(fits.exchange->method(), Method::allreduce);
  if (slots > 0) {
    const BuiltExchange too_large = build_exchange(Method::allreduce, inputs, ExchangeLimits{slots - 1});
    EXPECT_FALSE(too_large.exchange);
    EXPECT_NE(too_large.unavailable.find("would need " + std::to_string(slots) + " dense slots"), std::string::npos)
        << too_large.unavailable;
  }
}

}  // namespace
