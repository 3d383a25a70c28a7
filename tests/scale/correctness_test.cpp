// correctness_test.cpp — the library at many ranks (P = 16, 32: far more ranks than cores):
// each exchange method on random ids with heavy sharing, bit for bit against the serial
// reference (reference.hpp); every record transfer method against the pattern's expected
// deliveries (transfer_patterns.hpp); one scatter and one gather against the blocks they
// were built from.
//
// Every rank builds the same global problem from fixed seeds, so the expectations need no
// communication. Oversubscribed MPICH polls, and at P = 32 a collective costs tens of
// milliseconds (an allreduce-method call about 0.2 s), so each method gets one setup (an
// explicit method: auto would time every candidate) and three calls.
#include <gsr/handle.hpp>
#include <gsr/scatter_gather.hpp>
#include <gsr/transfer.hpp>

#include "method_param.hpp"
#include "random.hpp"
#include "reference.hpp"
#include "reference_random.hpp"
#include "transfer_patterns.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using gsr::Op;
using gsr::Transpose;
using gsr_test::PerRank;
using gsr_test::world_rank;
using gsr_test::world_size;

constexpr std::uint64_t base_seed = 0x5ca1e5ULL;  // fixed: failures must reproduce

/// Every rank's ids: 48 to 96 entries (none on rank P/2), 5% zeros, 30% of the rest flagged.
/// A quarter come from reference_random's id_pool, 20 magnitudes (some above 2^32, some equal
/// modulo 2^32) that nearly every rank holds, several times over; the others from 12P
/// magnitudes (6P small ones, and the same above 2^40), each held by a handful of ranks.
PerRank<std::int64_t> heavily_shared_ids(int ranks) {
  gsr_test::Random rng(base_seed);
  PerRank<std::int64_t> ids(static_cast<std::size_t>(ranks));
  const std::uint64_t spread = 6 * static_cast<std::uint64_t>(ranks);
  for (int r = 0; r < ranks; ++r) {
    if (r == ranks / 2) continue;
    for (std::size_t n = 48 + rng.below(49); n > 0; --n) {
      std::int64_t id = 0;
      if (!rng.percent(5)) {
        if (rng.percent(25)) {
          id = gsr_test::id_pool[rng.below(gsr_test::id_pool.size())];
        } else {
          id = 100 + static_cast<std::int64_t>(rng.below(spread));
          if (rng.percent(50)) id += std::int64_t(1) << 40;
        }
        if (rng.percent(30)) id = -id;
      }
      ids[static_cast<std::size_t>(r)].push_back(id);
    }
  }
  return ids;
}

std::string label(gsr::Method method, const char* call) {
  return "P=" + std::to_string(world_size()) + " rank=" + std::to_string(world_rank()) +
         " method=" + std::string(gsr::to_string(method)) + " call=" + call;
}

class ScaleMethods : public ::testing::TestWithParam<gsr::Method> {};

// One handle, three calls: a double sum (values spanning 16 decades, so any other
// combination order shows in the last bits), an int64 max with transpose on k = 2 components,
// and a float product started and waited.
TEST_P(ScaleMethods, HeavilySharedIdsMatchReferenceBitwise) {
  const gsr::Method method = GetParam();
  const int me = world_rank();
  const auto mine = static_cast<std::size_t>(me);
  const PerRank<std::int64_t> ids = heavily_shared_ids(world_size());

  gsr::Handle h(ids[mine], MPI_COMM_WORLD, gsr_test::with_method(method));
  ASSERT_EQ(h.size(), ids[mine].size());
  EXPECT_EQ(h.stats().method, method);
  EXPECT_EQ(h.stats().ranks, world_size());
  const std::uint64_t seed = base_seed + 100 * static_cast<std::uint64_t>(method);

  {
    const PerRank<double> input = gsr_test::random_values<double>(ids, 1, Op::add, seed + 1);
    PerRank<double> want = input;
    gsr_test::apply(ids, want, 1, Op::add, Transpose::no);
    std::vector<double> got = input[mine];
    h.apply(std::span<double>(got), Op::add);
    gsr_test::expect_same(want[mine], got, ids[mine], 1, label(method, "apply double add"));
  }
  {
    const PerRank<std::int64_t> input = gsr_test::random_values<std::int64_t>(ids, 2, Op::max, seed + 2);
    PerRank<std::int64_t> want = input;
    gsr_test::apply(ids, want, 2, Op::max, Transpose::yes);
    std::vector<std::int64_t> got = input[mine];
    h.apply_vec(std::span<std::int64_t>(got), 2, Op::max, Transpose::yes);
    gsr_test::expect_same(want[mine], got, ids[mine], 2, label(method, "apply_vec int64 max k=2 transpose"));
  }
  {
    const PerRank<float> input = gsr_test::random_values<float>(ids, 1, Op::mul, seed + 3);
    PerRank<float> want = input;
    gsr_test::apply(ids, want, 1, Op::mul, Transpose::no);
    std::vector<float> got = input[mine];
    gsr::Request request = h.start(std::span<float>(got), Op::mul);
    request.wait();
    gsr_test::expect_same(want[mine], got, ids[mine], 1, label(method, "start/wait float mul"));
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, ScaleMethods, ::testing::ValuesIn(gsr::registered_methods()), gsr_test::method_name);

// One transfer per method, 0 to 40 records per rank to random ranks: the records sorted by
// source, each source's in its order, with their sources.
TEST(ScaleTransfer, EveryMethodDeliversThePattern) {
  const int ranks = world_size(), me = world_rank();
  for (gsr::TransferMethod method : gsr::concrete_transfer_methods) {
    const std::uint64_t seed = base_seed + 7 + static_cast<std::uint64_t>(method);
    const gsr_test::Outgoing out = gsr_test::outgoing_of(gsr_test::Pattern::random, me, ranks, seed);
    const gsr_test::Expected want = gsr_test::expected_at(gsr_test::Pattern::random, me, ranks, seed);
    const auto got = gsr::transfer(out.records, out.destinations, MPI_COMM_WORLD, method);
    const std::string what = "P=" + std::to_string(ranks) + " rank=" + std::to_string(me) +
                             " transfer method=" + std::string(gsr::to_string(method));
    EXPECT_EQ(got.stats.method, method) << what;
    EXPECT_EQ(got.sources, want.sources) << what;
    EXPECT_TRUE(got.records == want.records)
        << what << ": " << got.records.size() << " records, " << want.records.size() << " expected";
  }
}

/// A value that says which block it belongs to and where.
struct Tagged {
  std::int32_t owner;
  std::int32_t index;
  double weight;
  bool operator==(const Tagged&) const = default;
};

Tagged tagged(int owner, std::size_t index) {
  return Tagged{owner, static_cast<std::int32_t>(index), owner * 1000.0 + 0.25 * static_cast<double>(index)};
}

// A scatter from a root that is neither rank 0 nor a power of two, of random blocks (a
// quarter empty), then the gather of what arrived back to the same root.
TEST(ScaleScatterGather, BlocksReachTheirRanksAndComeBack) {
  const int ranks = world_size(), me = world_rank();
  const int root = ranks - 3;
  gsr_test::Random rng(base_seed + 11);
  std::vector<std::size_t> counts(static_cast<std::size_t>(ranks));
  for (std::size_t& c : counts) c = rng.percent(25) ? 0 : 1 + rng.below(50);
  std::vector<Tagged> all;
  for (int r = 0; r < ranks; ++r)
    for (std::size_t i = 0; i < counts[static_cast<std::size_t>(r)]; ++i) all.push_back(tagged(r, i));

  const std::vector<Tagged> none;
  const std::vector<std::size_t> no_counts;
  const auto scattered = gsr::scatter(me == root ? all : none, me == root ? counts : no_counts, root, MPI_COMM_WORLD);
  std::vector<Tagged> mine;
  for (std::size_t i = 0; i < counts[static_cast<std::size_t>(me)]; ++i) mine.push_back(tagged(me, i));
  EXPECT_TRUE(scattered.block == mine) << "P=" << ranks << " rank " << me << ": scatter gave " << scattered.block.size()
                                       << " values, expected " << mine.size();

  const auto gathered = gsr::gather(scattered.block, root, MPI_COMM_WORLD);
  if (me == root) {
    EXPECT_EQ(gathered.counts, counts);
    EXPECT_TRUE(gathered.blocks == all) << "P=" << ranks << ": gather at root " << root << " gave "
                                        << gathered.blocks.size() << " values, expected " << all.size();
  } else {
    EXPECT_TRUE(gathered.blocks.empty());
  }
}

}  // namespace
