// Method selection: auto makes one choice on every rank and reports what it measured;
// a method table (SetupOptions::method_table, which GSR_METHOD sets) overrides auto (and only
// auto); an unknown name is a clear error on every rank;
// the statistics describe each method's messages (ceil(log2 P) stages for the crystal
// router); allreduce steps aside when its dense array would be too large.
#include "methods_support.hpp"

#include "exchange/registry.hpp"
#include "plan/plan.hpp"
#include "setup/discovery.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>

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

/// Options naming a method table, as GSR_METHOD does (config/config.hpp reads the variable
/// into the same setting); "auto" keeps auto whatever the environment says.
gsr::SetupOptions with_table(const std::string& table) {
  gsr::SetupOptions options;
  options.method_table = table;
  return options;
}

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
  const std::vector<std::int64_t> ids = ring_ids();
  gsr::Handle h(ids, MPI_COMM_WORLD, with_table("auto"));
  const gsr::Stats& st = h.stats();

  const int mine = static_cast<int>(st.method);
  const PerRank<int> all = gsr_test::allgather<int>(std::span<const int>(&mine, 1), MPI_COMM_WORLD);
  for (const auto& r : all) EXPECT_EQ(r[0], mine) << "ranks chose different methods";
  EXPECT_NE(st.method, Method::automatic);
  EXPECT_EQ(st.method_reason.rfind("auto:", 0), 0u) << st.method_reason;

  ASSERT_EQ(st.auto_timings.size(), gsr::registered_methods().size());
  if (world_size() == 1) {
    EXPECT_EQ(st.method, Method::pairwise) << "a single rank has nothing to exchange";
  } else {
    EXPECT_GT(st.auto_seconds, 0.0);
    EXPECT_LE(st.auto_seconds, st.setup_seconds);
    bool winner_measured = false;
    for (const gsr::MethodTiming& t : st.auto_timings) {
      // The measurements are maxima over ranks, so every rank holds the same numbers.
      const double seconds = t.seconds_per_call;
      const PerRank<double> everywhere =
          gsr_test::allgather<double>(std::span<const double>(&seconds, 1), MPI_COMM_WORLD);
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
        const auto& winner = *std::find_if(st.auto_timings.begin(), st.auto_timings.end(),
                                           [&](const gsr::MethodTiming& w) { return w.method == st.method; });
        EXPECT_LE(winner.seconds_per_call, t.seconds_per_call) << "auto did not keep the fastest";
      }
  }
  EXPECT_NE(h.summary().find(std::string(gsr::to_string(st.method))), std::string::npos);
  expect_apply_matches_reference(h, ids, "auto's choice");
}

TEST(Auto, MethodTableOverridesAutoForEveryName) {
  const std::vector<std::int64_t> ids = ring_ids();
  for (Method m : gsr::registered_methods()) {
    gsr::Handle h(ids, MPI_COMM_WORLD, with_table(std::string(gsr::to_string(m))));
    EXPECT_EQ(h.stats().method, m);
    EXPECT_NE(h.stats().method_reason.find("method_table"), std::string::npos) << h.stats().method_reason;
    EXPECT_TRUE(h.stats().auto_timings.empty()) << "auto must not run when a method table names a method";
    expect_apply_matches_reference(h, ids, "method_table=" + std::string(gsr::to_string(m)));
  }
}

TEST(Auto, ExplicitMethodBeatsMethodTable) {
  gsr::SetupOptions options = with_table("allreduce");
  options.method = Method::crystal_router;
  gsr::Handle h(ring_ids(), MPI_COMM_WORLD, options);
  EXPECT_EQ(h.stats().method, Method::crystal_router);
}

TEST(Auto, UnknownMethodInTableIsAClearErrorOnEveryRank) {
  try {
    gsr::Handle h(ring_ids(), MPI_COMM_WORLD, with_table("crystal"));
    ADD_FAILURE() << "method_table=crystal was accepted";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), gsr::ErrorCode::invalid_argument) << e.what();
    const std::string message = e.what();
    EXPECT_NE(message.find("method_table='crystal'"), std::string::npos) << message;
    EXPECT_NE(message.find("crystal"), std::string::npos) << message;
    EXPECT_NE(message.find("crystal_router"), std::string::npos) << "should list the valid names: " << message;
  }
}

// ---- methods per call size ------------------------------------------------------------

/// One call's data and the serial reference's answer for it (vec layout, op add).
template <class T>
struct SizedCall {
  std::size_t k;
  std::vector<T> got, want;
  SizedCall(const std::vector<std::int64_t>& ids, std::size_t k_, int salt) : k(k_), got(ids.size() * k_) {
    for (std::size_t i = 0; i < got.size(); ++i)
      got[i] = static_cast<T>(0.25 * static_cast<double>((i * 7 + 3 * salt) % 61) + world_rank());
    want = gsr_test::expected<T>(ids, got, k, Op::add, Transpose::no, MPI_COMM_WORLD);
  }
  gsr::Request start(gsr::Handle& h) { return h.start_vec(std::span<T>(got), k, Op::add); }
};

TEST(AutoBySize, MethodTableServesEachSizeWithItsMethod) {
  const std::vector<std::int64_t> ids = ring_ids();
  gsr::Handle h(ids, MPI_COMM_WORLD, with_table("crystal_router,pairwise:16,allreduce:64"));
  const gsr::Stats& st = h.stats();
  EXPECT_EQ(st.method, Method::crystal_router) << "one double (8 bytes) is below 16";
  ASSERT_EQ(st.methods_by_size.size(), 3u);
  EXPECT_EQ(st.methods_by_size[0].entry_bytes, 0u);
  EXPECT_EQ(st.methods_by_size[1].entry_bytes, 16u);
  EXPECT_EQ(st.methods_by_size[2].entry_bytes, 64u);
  EXPECT_EQ(st.method_for(4, 3), Method::crystal_router);  // 12 bytes per entry
  EXPECT_EQ(st.method_for(8, 2), Method::pairwise);        // 16
  EXPECT_EQ(st.method_for(4, 15), Method::pairwise);       // 60
  EXPECT_EQ(st.method_for(8, 8), Method::allreduce);       // 64
  EXPECT_EQ(st.method_for(8, 1000), Method::allreduce);
  EXPECT_NE(h.summary().find("calls of 16-63 bytes per entry (value size x k): pairwise"), std::string::npos)
      << h.summary();

  // Calls of every range in flight together, waited in an order that depends on the rank:
  // each method's messages must find their own call.
  SizedCall<double> one(ids, 1, 1), two(ids, 2, 2), eight(ids, 8, 3), again(ids, 1, 4);
  SizedCall<float> floats(ids, 3, 5), wide(ids, 16, 6);
  for (int round = 0; round < 3; ++round) {
    std::vector<gsr::Request> requests;
    requests.push_back(one.start(h));
    requests.push_back(two.start(h));
    requests.push_back(eight.start(h));
    requests.push_back(floats.start(h));
    requests.push_back(wide.start(h));
    requests.push_back(again.start(h));
    if ((world_rank() + round) % 2) std::reverse(requests.begin(), requests.end());
    for (gsr::Request& r : requests) r.wait();
    const std::string label = "round " + std::to_string(round) + " rank " + std::to_string(world_rank());
    methods_test::expect_bitwise(one.want, one.got, label + " double k=1 (crystal_router)");
    methods_test::expect_bitwise(two.want, two.got, label + " double k=2 (pairwise)");
    methods_test::expect_bitwise(eight.want, eight.got, label + " double k=8 (allreduce)");
    methods_test::expect_bitwise(floats.want, floats.got, label + " float k=3 (crystal_router)");
    methods_test::expect_bitwise(wide.want, wide.got, label + " float k=16 (allreduce)");
    methods_test::expect_bitwise(again.want, again.got, label + " double k=1 again");
    // Summing again doubles what copies share: recompute the references from the results.
    for (auto* c : {&one, &two, &eight, &again})
      c->want = gsr_test::expected<double>(ids, c->got, c->k, Op::add, Transpose::no, MPI_COMM_WORLD);
    for (auto* c : {&floats, &wide})
      c->want = gsr_test::expected<float>(ids, c->got, c->k, Op::add, Transpose::no, MPI_COMM_WORLD);
  }
}

TEST(AutoBySize, BadArgumentsOnOneRankReachTheOthersThroughTheSizesMethod) {
  if (world_size() < 2) GTEST_SKIP() << "needs another rank to hear of the failure";
  // Pairwise and allreduce exchange nothing alike: a rank taking part through the wrong
  // one would leave the others waiting until the timeout (short here, so that shows as
  // ErrorCode::timeout instead of remote).
  gsr::SetupOptions options = with_table("pairwise,allreduce:16");
  options.messages.timeout = 20;
  const std::vector<std::int64_t> ids = ring_ids();
  gsr::Handle h(ids, MPI_COMM_WORLD, options);
  std::vector<double> v(ids.size() * 2, 1.0);
  // Rank 0 passes NULL data for a call of 16 bytes per entry (allreduce); every other rank
  // passes good data and hears of the failure instead of waiting.
  try {
    h.apply_vec(world_rank() == 0 ? nullptr : v.data(), v.size(), 2, gsr::Domain::float64, Op::add, Transpose::no);
    ADD_FAILURE() << "the call succeeded on rank " << world_rank();
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), world_rank() == 0 ? gsr::ErrorCode::invalid_argument : gsr::ErrorCode::remote) << e.what();
  }
  // A shim that finds the arguments bad itself (the C request pointer, a Fortran k) says
  // which call it refuses, so the same method carries the refusal.
  try {
    if (world_rank() == 0)
      h.fail_call(gsr::ErrorCode::invalid_argument, "gsr: refused by a shim", gsr::Domain::float64, 2);
    h.apply_vec(std::span<double>(v), 2, Op::add);
    ADD_FAILURE() << "the call succeeded on rank " << world_rank();
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), world_rank() == 0 ? gsr::ErrorCode::invalid_argument : gsr::ErrorCode::remote) << e.what();
  }
  // The handle still works, in both ranges.
  SizedCall<double> one(ids, 1, 7), two(ids, 2, 8);
  one.start(h).wait();
  two.start(h).wait();
  methods_test::expect_bitwise(one.want, one.got, "after the failure, k=1");
  methods_test::expect_bitwise(two.want, two.got, "after the failure, k=2");
}

TEST(AutoBySize, AutoTableIsTheSameOnEveryRankAndServesEverySize) {
  const std::vector<std::int64_t> ids = ring_ids();
  gsr::Handle h(ids, MPI_COMM_WORLD, with_table("auto"));
  const gsr::Stats& st = h.stats();
  std::vector<std::int64_t> mine{static_cast<std::int64_t>(st.method)};
  for (const gsr::SizeMethod& range : st.methods_by_size) {
    mine.push_back(static_cast<std::int64_t>(range.entry_bytes));
    mine.push_back(static_cast<std::int64_t>(range.method));
  }
  const PerRank<std::int64_t> all =
      gsr_test::allgather<std::int64_t>(std::span<const std::int64_t>(mine), MPI_COMM_WORLD);
  for (const auto& r : all) EXPECT_EQ(r, mine) << "ranks made different tables";
  EXPECT_EQ(st.method_for(sizeof(double)), st.method);
  for (std::size_t k : {1, 2, 3, 5, 8, 40}) {
    SizedCall<double> c(ids, k, static_cast<int>(k));
    c.start(h).wait();
    methods_test::expect_bitwise(c.want, c.got, "auto, k=" + std::to_string(k));
  }
}

TEST(AutoBySize, BadMethodTablesAreClearErrors) {
  const std::vector<std::int64_t> ids = ring_ids();
  const std::vector<std::pair<const char*, const char*>> cases{
      {"crystal_router,pairwise", "'pairwise' has no size"},
      {"pairwise:8", "the first method, 'pairwise', serves every size below the next and takes no size"},
      {"pairwise,crystal_router:0", "'crystal_router' has the size '0'"},
      {"pairwise,crystal_router:64,allreduce:32", "'allreduce' has the size '32'"},
      {"pairwise,crystal_router:-4", "'crystal_router' has the size '-4'"},
      {"pairwise,crystal_router:4k", "'crystal_router' has the size '4k'"},
      {"pairwise,fastest:64", "'fastest' names no method"},
      {"auto,pairwise:64", "auto cannot be in a table"},
      {"pairwise,", "'' names no method"},
  };
  for (const auto& [value, detail] : cases) {
    try {
      gsr::Handle h(ids, MPI_COMM_WORLD, with_table(value));
      ADD_FAILURE() << "method_table=" << value << " was accepted";
    } catch (const gsr::Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(e.code(), gsr::ErrorCode::invalid_argument) << message;
      EXPECT_NE(
          message.find(std::string("method_table='") + value + "' is not a table of methods per call size: " + detail),
          std::string::npos)
          << message;
    }
  }
}

TEST(AutoBySize, RanksWithDifferentTablesDisagree) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks to disagree";
  try {
    const char* table = world_rank() == 0 ? "crystal_router,pairwise:16" : "crystal_router";
    gsr::Handle h(ring_ids(), MPI_COMM_WORLD, with_table(table));
    ADD_FAILURE() << "different method tables were accepted";
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), gsr::ErrorCode::mismatch) << e.what();
    EXPECT_NE(std::string(e.what()).find("ranks disagree about the method for some call sizes"), std::string::npos)
        << e.what();
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
  const Topology topo = discover(ids, order, MPI_COMM_WORLD, 0, 0);
  const Plan plan = build_plan(ids, order, topo, world_rank(), world_size());
  const ExchangeInputs inputs{plan, topo.holders, MPI_COMM_WORLD, {}};
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
