// gsr::transfer (include/gsr/transfer.hpp) at P = 1..7: every method, and automatic, deliver
// exactly the records the pattern says, in the documented order, on random and adversarial
// patterns; the statistics add up across ranks; the two-round bins stay within the bounds of
// docs/transfer.md (and reach the first-round bound on the staircase pattern); the crystal
// router takes ceil(log2 P) stages at most, and exactly that many on some rank; the raw-byte
// core moves odd-sized records; a tiny chunk limit (an option) sends every message in pieces;
// automatic picks what the rule of docs/transfer.md says.
#include <gsr/transfer.hpp>

#include "transfer_patterns.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using gsr::TransferMethod;
using gsr_test::Pattern;
using gsr_test::Record;

constexpr std::uint64_t seed = 20261123;

constexpr TransferMethod every_method[] = {TransferMethod::automatic, TransferMethod::direct,
                                           TransferMethod::crystal_router, TransferMethod::two_round};

std::string what(Pattern p, TransferMethod m) {
  return std::string(gsr_test::name_of(p)) + " by " + std::string(gsr::to_string(m));
}

/// Sum over ranks (MPI_SUM of unsigned 64-bit values).
std::uint64_t sum_over_ranks(std::uint64_t mine) {
  std::uint64_t sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

std::uint64_t max_over_ranks(std::uint64_t mine) {
  std::uint64_t most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return most;
}

TEST(Transfer, EveryMethodDeliversEveryPatternInOrder) {
  const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
  for (Pattern pattern : gsr_test::all_patterns) {
    const gsr_test::Outgoing out = gsr_test::outgoing_of(pattern, me, ranks, seed);
    const gsr_test::Expected expected = gsr_test::expected_at(pattern, me, ranks, seed);
    for (TransferMethod method : every_method) {
      const auto got = gsr::transfer(out.records, out.destinations, MPI_COMM_WORLD, method);
      EXPECT_EQ(got.records, expected.records) << what(pattern, method);
      EXPECT_EQ(got.sources, expected.sources) << what(pattern, method);
      if (method != TransferMethod::automatic)
        EXPECT_EQ(got.stats.method, method) << what(pattern, method);
      else
        EXPECT_NE(got.stats.method, TransferMethod::automatic);
    }
  }
}

TEST(Transfer, StatisticsAddUpAcrossRanks) {
  const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
  const std::uint64_t stride = sizeof(Record) + 8;  // routed methods put an 8-byte envelope in front
  for (Pattern pattern : {Pattern::random, Pattern::all_to_one}) {
    const gsr_test::Outgoing out = gsr_test::outgoing_of(pattern, me, ranks, seed);
    std::uint64_t to_others = 0;
    for (int d : out.destinations) to_others += d != me;
    for (TransferMethod method : {TransferMethod::direct, TransferMethod::crystal_router, TransferMethod::two_round}) {
      const auto got = gsr::transfer(out.records, out.destinations, MPI_COMM_WORLD, method);
      const gsr::TransferRoundStats total = got.stats.total();
      // Every message sent is received; nothing is lost or made up on the way.
      std::uint64_t mine[4] = {total.messages_sent, total.messages_received, total.bytes_sent, total.bytes_received};
      std::uint64_t all[4] = {};
      MPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      EXPECT_EQ(all[0], all[1]) << what(pattern, method);
      EXPECT_EQ(all[2], all[3]) << what(pattern, method);
      switch (method) {
        case TransferMethod::direct:
          ASSERT_EQ(got.stats.stages(), 1u);
          EXPECT_EQ(total.records_sent, to_others) << what(pattern, method);
          EXPECT_EQ(total.bytes_sent, to_others * sizeof(Record)) << what(pattern, method);
          EXPECT_LE(total.messages_sent, static_cast<std::size_t>(ranks - 1));
          break;
        case TransferMethod::crystal_router:
          for (const auto& round : got.stats.rounds) {
            EXPECT_EQ(round.messages_sent, 1u) << what(pattern, method);  // bundled: one per stage
            EXPECT_LE(round.messages_received, 2u);
            EXPECT_EQ(round.bytes_sent, round.records_sent * stride);
          }
          break;
        case TransferMethod::two_round:
          ASSERT_EQ(got.stats.stages(), 2u);
          for (const auto& round : got.stats.rounds) {
            EXPECT_EQ(round.messages_sent, static_cast<std::size_t>(ranks - 1)) << what(pattern, method);
            EXPECT_EQ(round.messages_received, static_cast<std::size_t>(ranks - 1)) << what(pattern, method);
            EXPECT_EQ(round.bytes_sent, round.records_sent * stride);
          }
          break;
        case TransferMethod::automatic:
          break;
      }
      EXPECT_EQ(total.largest_message_bytes == 0, total.largest_message_records == 0);
    }
  }
}

TEST(Transfer, TwoRoundBinsStayWithinTheBounds) {
  const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
  for (Pattern pattern : gsr_test::all_patterns) {
    const gsr_test::Outgoing out = gsr_test::outgoing_of(pattern, me, ranks, seed);
    const gsr_test::Expected expected = gsr_test::expected_at(pattern, me, ranks, seed);
    const auto got = gsr::transfer(out.records, out.destinations, MPI_COMM_WORLD, TransferMethod::two_round);
    ASSERT_EQ(got.stats.stages(), 2u);
    const std::size_t first_bound = gsr_test::two_round_bound(out.records.size(), ranks);
    const std::size_t second_bound = gsr_test::two_round_bound(expected.most_received, ranks);
    EXPECT_LE(got.stats.rounds[0].largest_message_records, first_bound) << gsr_test::name_of(pattern);
    EXPECT_LE(got.stats.rounds[1].largest_message_records, second_bound) << gsr_test::name_of(pattern);
    if (pattern == Pattern::staircase) {
      // The bound is tight: bin i-1 of rank i holds one extra record of every destination.
      EXPECT_EQ(got.stats.rounds[0].largest_message_records, first_bound);
      EXPECT_EQ(first_bound, static_cast<std::size_t>(ranks - 1));
    }
  }
}

TEST(Transfer, CrystalRouterTakesCeilLog2Stages) {
  const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
  const gsr_test::Outgoing out = gsr_test::outgoing_of(Pattern::random, me, ranks, seed);
  const auto got = gsr::transfer(out.records, out.destinations, MPI_COMM_WORLD, TransferMethod::crystal_router);
  EXPECT_LE(got.stats.stages(), static_cast<std::size_t>(gsr_test::ceil_log2(ranks)));
  EXPECT_EQ(max_over_ranks(got.stats.stages()), static_cast<std::uint64_t>(gsr_test::ceil_log2(ranks)));
}

TEST(Transfer, RawBytesOfAnOddRecordSize) {
  // 3-byte records: byte 0 the source, bytes 1-2 the index; to rank (source + index) mod P.
  const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
  const std::size_t count = 17 + static_cast<std::size_t>(me) * 5;
  std::vector<unsigned char> records(3 * count);
  std::vector<int> destinations(count);
  for (std::size_t i = 0; i < count; ++i) {
    records[3 * i] = static_cast<unsigned char>(me);
    records[3 * i + 1] = static_cast<unsigned char>(i & 0xff);
    records[3 * i + 2] = static_cast<unsigned char>(i >> 8);
    destinations[i] = static_cast<int>((static_cast<std::size_t>(me) + i) % static_cast<std::size_t>(ranks));
  }
  std::vector<unsigned char> expected;
  std::vector<int> expected_sources;
  for (int s = 0; s < ranks; ++s)
    for (std::size_t i = 0; i < 17 + static_cast<std::size_t>(s) * 5; ++i)
      if ((static_cast<std::size_t>(s) + i) % static_cast<std::size_t>(ranks) == static_cast<std::size_t>(me)) {
        expected.insert(expected.end(), {static_cast<unsigned char>(s), static_cast<unsigned char>(i & 0xff),
                                         static_cast<unsigned char>(i >> 8)});
        expected_sources.push_back(s);
      }
  for (TransferMethod method : every_method) {
    std::vector<unsigned char> received;
    int calls = 0;
    const gsr::TransferResult result = gsr::transfer_bytes(
        records.data(), count, 3, destinations, MPI_COMM_WORLD,
        [&](std::size_t n) -> void* {
          ++calls;
          received.resize(3 * n);
          return received.data();
        },
        method);
    EXPECT_EQ(calls, 1) << gsr::to_string(method);
    EXPECT_EQ(result.count, expected_sources.size()) << gsr::to_string(method);
    EXPECT_EQ(received, expected) << gsr::to_string(method);
    EXPECT_EQ(result.sources, expected_sources) << gsr::to_string(method);
  }
}

TEST(Transfer, EveryMessageInChunks) {
  // 64 bytes: every non-empty message (a 24-byte record, 32 with its envelope) of three
  // records or more goes in pieces, through the path a message over 2^31 bytes takes on an
  // MPI without large counts.
  const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
  gsr::TransferOptions options;
  options.messages.chunk_bytes = 64;
  for (Pattern pattern : {Pattern::random, Pattern::all_to_one, Pattern::staircase}) {
    const gsr_test::Outgoing out = gsr_test::outgoing_of(pattern, me, ranks, seed + 1);
    const gsr_test::Expected expected = gsr_test::expected_at(pattern, me, ranks, seed + 1);
    for (TransferMethod method : {TransferMethod::direct, TransferMethod::crystal_router, TransferMethod::two_round}) {
      options.method = method;
      const auto got = gsr::transfer(out.records, out.destinations, MPI_COMM_WORLD, options);
      EXPECT_EQ(got.records, expected.records) << what(pattern, method);
      EXPECT_EQ(got.sources, expected.sources) << what(pattern, method);
    }
  }
}

TEST(Transfer, AutomaticFollowsTheDocumentedRule) {
  // docs/transfer.md, "Automatic choice", evaluated here from every rank's pattern.
  const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
  const double alpha = 2e-6, beta = 1e-9, w = sizeof(Record), e = 8, D = gsr_test::ceil_log2(ranks);
  for (Pattern pattern : gsr_test::all_patterns) {
    double n = 0, d = 0;
    for (int s = 0; s < ranks; ++s) {
      const gsr_test::Outgoing out = gsr_test::outgoing_of(pattern, s, ranks, seed);
      std::vector<bool> partner(static_cast<std::size_t>(ranks), false);
      for (int dest : out.destinations)
        if (dest != s) partner[dest] = true;
      n = std::max(n, static_cast<double>(out.records.size()));
      d = std::max(d, static_cast<double>(std::count(partner.begin(), partner.end(), true)));
    }
    const double direct = alpha * (d + D) + beta * w * n * (ranks - 1) / ranks;
    const double crystal = alpha * D + beta * (w + e) * n * D / 2;
    const TransferMethod expected = crystal < direct ? TransferMethod::crystal_router : TransferMethod::direct;
    const gsr_test::Outgoing out = gsr_test::outgoing_of(pattern, me, ranks, seed);
    const auto got = gsr::transfer(out.records, out.destinations, MPI_COMM_WORLD);
    EXPECT_EQ(got.stats.method, expected) << gsr_test::name_of(pattern) << ": n " << n << ", d " << d;
  }
}

TEST(Transfer, MethodNames) {
  for (TransferMethod m :
       {TransferMethod::automatic, TransferMethod::direct, TransferMethod::crystal_router, TransferMethod::two_round})
    EXPECT_EQ(gsr::transfer_method_from_string(gsr::to_string(m)), m);
  EXPECT_EQ(gsr::to_string(TransferMethod::two_round), "two_round");
  EXPECT_EQ(gsr::to_string(TransferMethod::automatic), "auto");
  EXPECT_FALSE(gsr::transfer_method_from_string("pairwise").has_value());
}

}  // namespace
