// gsr::scatter and gsr::gather (include/gsr/scatter_gather.hpp): the results equal
// MPI_Scatterv's and MPI_Gatherv's and the values each block was built with, for every
// root, random sizes and empty blocks; each rank's counted rounds, messages and bytes are
// the spanning binomial tree's (docs/transfer.md, "Scatter and gather"). Bad arguments are
// scatter_gather_errors_test.cpp's. Every rank draws the same sizes from the same seed, so
// each knows what every other rank must hold without asking. Collectives are kept few: at
// P > 2 MPICH polls.
#include <gsr/scatter_gather.hpp>

#include "random.hpp"
#include "transfer/scatter_gather.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

namespace {

using gsr_test::world_rank;
using gsr_test::world_size;

/// A value that says where it belongs, so a block delivered to the wrong rank or in the
/// wrong order shows.
struct Tagged {
  std::int32_t trial;
  std::int32_t owner;  // the rank whose block it is
  std::int64_t index;  // its position in that block
  double weight;
  bool operator==(const Tagged&) const = default;
};

Tagged value_of(int trial, int owner, std::size_t index) {
  return Tagged{trial, owner, static_cast<std::int64_t>(index), owner + 0.5 * static_cast<double>(index)};
}

/// ceil(log2 p), counted by doubling (independently of the library's own function).
int ceil_log2(int p) {
  int d = 0;
  for (int reach = 1; reach < p; reach *= 2) ++d;
  return d;
}

/// The sizes of one trial: `kind` 0 random (some empty), 1 all empty, 2 uniform m = 5.
std::vector<std::size_t> sizes_for(int kind, int trial, int ranks) {
  gsr_test::Random random(0x5ca77e6ULL + static_cast<std::uint64_t>(trial));
  std::vector<std::size_t> counts(static_cast<std::size_t>(ranks));
  for (auto& c : counts) c = kind == 0 ? (random.percent(25) ? 0 : random.below(40)) : kind == 1 ? 0 : 5;
  return counts;
}

std::vector<Tagged> blocks_for(int trial, const std::vector<std::size_t>& counts) {
  std::vector<Tagged> all;
  for (std::size_t r = 0; r < counts.size(); ++r)
    for (std::size_t i = 0; i < counts[r]; ++i) all.push_back(value_of(trial, static_cast<int>(r), i));
  return all;
}

std::vector<int> byte_counts(const std::vector<std::size_t>& counts) {
  std::vector<int> bytes;
  for (std::size_t c : counts) bytes.push_back(static_cast<int>(c * sizeof(Tagged)));
  return bytes;
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> at(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) at[r] = at[r - 1] + counts[r - 1];
  return at;
}

/// The bytes every rank but the root holds, in bytes.
std::size_t payload_off_root(const std::vector<std::size_t>& counts, int root) {
  std::size_t sum = 0;
  for (std::size_t r = 0; r < counts.size(); ++r)
    if (static_cast<int>(r) != root) sum += counts[r] * sizeof(Tagged);
  return sum;
}

/// The counts the seed's analysis gives for the rank that is the root of a tree over P
/// ranks: ceil(log2 P) rounds, one message each, and in round t a bundle for the ranks
/// [h, min(2h, P)) relative to the root, h = 2^(d-1-t) (for P = 2^d: P/2, P/4, ..., 1).
void expect_root_stats(const gsr::TreeStats& stats, bool root_sends, const std::vector<std::size_t>& counts, int root,
                       int trial) {
  const int ranks = static_cast<int>(counts.size());
  const int d = ceil_log2(ranks);
  SCOPED_TRACE("trial " + std::to_string(trial) + ", root " + std::to_string(root));
  EXPECT_EQ(stats.rounds, d);
  EXPECT_EQ(root_sends ? stats.messages_sent : stats.messages_received, static_cast<std::size_t>(d));
  EXPECT_EQ(root_sends ? stats.messages_received : stats.messages_sent, 0u);
  // Every block but the root's own leaves (or reaches) the root exactly once.
  EXPECT_EQ(root_sends ? stats.bytes_sent : stats.bytes_received, payload_off_root(counts, root));
  ASSERT_EQ(stats.messages.size(), static_cast<std::size_t>(d));
  for (int t = 0; t < d; ++t) {
    // A scatter's root sends the largest bundle first; a gather's root receives it last.
    const gsr::TreeMessage& m = stats.messages[static_cast<std::size_t>(root_sends ? t : d - 1 - t)];
    const int h = 1 << (d - 1 - t);
    const int end = std::min(2 * h, ranks);
    EXPECT_EQ(m.sent, root_sends);
    EXPECT_EQ(m.peer, (root + h) % ranks);
    EXPECT_EQ(m.blocks, static_cast<std::size_t>(end - h));
    EXPECT_EQ(m.header_bytes, 8u * static_cast<std::size_t>(end - h));
    std::size_t payload = 0;
    for (int u = h; u < end; ++u) payload += counts[static_cast<std::size_t>((root + u) % ranks)] * sizeof(Tagged);
    EXPECT_EQ(m.payload_bytes, payload);
  }
}

/// On a power-of-two P with equal blocks the bundle halves each round.
void expect_halving(const gsr::TreeStats& stats, bool root_sends, std::size_t block_bytes, int ranks) {
  if ((ranks & (ranks - 1)) != 0 || ranks == 1) return;
  const std::size_t d = stats.messages.size();
  for (std::size_t t = 0; t < d; ++t) {
    const gsr::TreeMessage& m = stats.messages[root_sends ? t : d - 1 - t];
    EXPECT_EQ(m.payload_bytes, block_bytes * static_cast<std::size_t>(ranks) >> (t + 1)) << "round " << t;
    if (t > 0) EXPECT_EQ(2 * m.payload_bytes, stats.messages[root_sends ? t - 1 : d - t].payload_bytes);
  }
}

/// Sums over the ranks, in one collective: messages sent, messages received, payload bytes
/// sent, payload bytes received, and the most rounds any rank took part in (as a max).
struct Totals {
  std::uint64_t sent_messages, received_messages, sent_bytes, received_bytes;
  int most_rounds;
};
Totals totals(const gsr::TreeStats& s) {
  std::uint64_t mine[4] = {s.messages_sent, s.messages_received, s.bytes_sent, s.bytes_received};
  std::uint64_t sum[4] = {};
  MPI_Allreduce(mine, sum, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  int most = 0;
  MPI_Allreduce(&s.rounds, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return Totals{sum[0], sum[1], sum[2], sum[3], most};
}

TEST(ScatterGatherTree, EveryRankHearsOnceAndTheRangesCoverEveryone) {
  for (int ranks = 1; ranks <= 70; ++ranks) {
    const int d = ceil_log2(ranks);
    EXPECT_EQ(gsr::detail::tree_rounds(ranks), d);
    std::vector<int> covered(static_cast<std::size_t>(ranks), 0);  // times each rank is a bundle's first
    for (int v = 0; v < ranks; ++v) {
      const auto steps = gsr::detail::scatter_steps(v, ranks);
      int receives = 0;
      for (const auto& s : steps) {
        ASSERT_LT(s.round, d);
        ASSERT_LT(s.first, s.end);
        ASSERT_LE(s.end, ranks);
        if (s.from_parent) {
          ++receives;
          EXPECT_EQ(s.first, v);
          EXPECT_EQ(s.partner, v - (v & -v));  // the parent clears the lowest set bit
        } else {
          EXPECT_EQ(s.first, s.partner);
          ++covered[static_cast<std::size_t>(s.partner)];
        }
      }
      EXPECT_EQ(receives, v == 0 ? 0 : 1) << "P " << ranks << " rank " << v;
      if (v != 0) ASSERT_FALSE(steps.empty()) << "P " << ranks << " rank " << v;
      if (v != 0) EXPECT_TRUE(steps.front().from_parent);
    }
    for (int v = 1; v < ranks; ++v) EXPECT_EQ(covered[static_cast<std::size_t>(v)], 1) << "P " << ranks;
  }
}

TEST(ScatterGather, EqualsMpiAtEveryRootWithTheTreeCounts) {
  const int ranks = world_size();
  const int me = world_rank();
  int trial = 0;
  for (int kind = 0; kind < 3; ++kind) {
    for (int root = 0; root < ranks; ++root, ++trial) {
      const std::vector<std::size_t> counts = sizes_for(kind, trial, ranks);
      const std::vector<Tagged> all = me == root ? blocks_for(trial, counts) : std::vector<Tagged>{};
      const std::vector<std::size_t> no_counts;
      const auto scattered = gsr::scatter(all, me == root ? counts : no_counts, root, MPI_COMM_WORLD);

      // What MPI_Scatterv delivers, and what the block must be by construction.
      const std::vector<int> bytes = byte_counts(counts);
      const std::vector<int> at = displacements(bytes);
      std::vector<Tagged> from_mpi(counts[static_cast<std::size_t>(me)]);
      MPI_Scatterv(all.data(), bytes.data(), at.data(), MPI_BYTE, from_mpi.data(), bytes[static_cast<std::size_t>(me)],
                   MPI_BYTE, root, MPI_COMM_WORLD);
      std::vector<Tagged> expected;
      for (std::size_t i = 0; i < counts[static_cast<std::size_t>(me)]; ++i) expected.push_back(value_of(trial, me, i));
      EXPECT_EQ(scattered.block, from_mpi) << "trial " << trial << " root " << root;
      EXPECT_EQ(scattered.block, expected) << "trial " << trial << " root " << root;

      const auto gathered = gsr::gather(scattered.block, root, MPI_COMM_WORLD);
      std::vector<Tagged> gathered_by_mpi(me == root ? all.size() : 0);
      MPI_Gatherv(scattered.block.data(), bytes[static_cast<std::size_t>(me)], MPI_BYTE, gathered_by_mpi.data(),
                  bytes.data(), at.data(), MPI_BYTE, root, MPI_COMM_WORLD);
      const Totals scatter_totals = totals(scattered.stats);
      const Totals gather_totals = totals(gathered.stats);

      EXPECT_EQ(scattered.stats.tree_rounds, ceil_log2(ranks));
      EXPECT_EQ(gathered.stats.tree_rounds, ceil_log2(ranks));
      if (me == root) {
        EXPECT_EQ(gathered.blocks, gathered_by_mpi) << "trial " << trial;
        EXPECT_EQ(gathered.blocks, all) << "trial " << trial;
        EXPECT_EQ(gathered.counts, counts) << "trial " << trial;
        expect_root_stats(scattered.stats, true, counts, root, trial);
        expect_root_stats(gathered.stats, false, counts, root, trial);
        if (kind == 2) {
          // The seed's count for blocks of m words: m(P-1) leave (reach) the root.
          EXPECT_EQ(scattered.stats.bytes_sent, 5 * sizeof(Tagged) * static_cast<std::size_t>(ranks - 1));
          EXPECT_EQ(gathered.stats.bytes_received, 5 * sizeof(Tagged) * static_cast<std::size_t>(ranks - 1));
          expect_halving(scattered.stats, true, 5 * sizeof(Tagged), ranks);
          expect_halving(gathered.stats, false, 5 * sizeof(Tagged), ranks);
        }
      } else {
        EXPECT_TRUE(gathered.blocks.empty());
        EXPECT_TRUE(gathered.counts.empty());
        // Everyone but the root hears once in a scatter and speaks once in a gather.
        EXPECT_EQ(scattered.stats.messages_received, 1u);
        EXPECT_EQ(gathered.stats.messages_sent, 1u);
        EXPECT_EQ(scattered.stats.messages_sent, gathered.stats.messages_received);
        EXPECT_EQ(scattered.stats.rounds, 1 + static_cast<int>(scattered.stats.messages_sent));
        EXPECT_LT(scattered.stats.rounds, ceil_log2(ranks) + 1);
      }
      // P - 1 messages in all, every byte sent is received, the root is the busiest.
      for (const Totals& t : {scatter_totals, gather_totals}) {
        EXPECT_EQ(t.sent_messages, static_cast<std::uint64_t>(ranks - 1)) << "trial " << trial;
        EXPECT_EQ(t.received_messages, static_cast<std::uint64_t>(ranks - 1)) << "trial " << trial;
        EXPECT_EQ(t.sent_bytes, t.received_bytes) << "trial " << trial;
        EXPECT_EQ(t.most_rounds, ceil_log2(ranks)) << "trial " << trial;
      }
    }
  }
}

TEST(ScatterGather, RawBytesInChunksPackedAndNot) {
  // Messages longer than the chunk limit travel in pieces (mpi/messages.hpp), and bundles of
  // more than 16 KiB of blocks go as a header followed by the blocks where they lie; the
  // results must be the same either way. With the root in the middle, some bundles hold
  // ranks P-1 and 0 (at P = 5 and 6: a root's blocks are not contiguous in rank order).
  const int ranks = world_size();
  const int me = world_rank();
  struct Case {
    std::size_t chunk_limit, base, step;
    bool empties;
    int root;
  };
  for (const Case& c : {Case{48, 97, 31, false, ranks - 1}, Case{4096, 20000, 3001, true, ranks - 1},
                        Case{4096, 17000, 1001, false, ranks / 2}}) {
    const int root = c.root;
    SCOPED_TRACE("blocks from " + std::to_string(c.base) + " bytes, root " + std::to_string(root));
    std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks));
    std::vector<unsigned char> all;
    for (int r = 0; r < ranks; ++r) {
      const bool empty = c.empties && r % 3 == 1;
      counts[static_cast<std::size_t>(r)] = empty ? 0 : static_cast<std::int64_t>(c.base + c.step * r);
      for (int i = 0; i < counts[static_cast<std::size_t>(r)]; ++i)
        all.push_back(static_cast<unsigned char>(r * 7 + i));
    }
    gsr::MessageOptions chunked;
    chunked.chunk_bytes = c.chunk_limit;
    std::vector<unsigned char> mine;
    const auto result = gsr::scatter_bytes(
        all.data(), all.size(), counts, 1, root, MPI_COMM_WORLD,
        [&](std::size_t n) {
          mine.resize(n);
          return static_cast<void*>(mine.data());
        },
        chunked);
    std::vector<unsigned char> back;
    const auto gathered = gsr::gather_bytes(
        mine.data(), static_cast<std::int64_t>(mine.size()), 1, root, MPI_COMM_WORLD,
        [&](std::size_t n) {
          back.resize(n);
          return static_cast<void*>(back.data());
        },
        chunked);
    ASSERT_EQ(result.count, static_cast<std::size_t>(counts[static_cast<std::size_t>(me)]));
    for (std::size_t i = 0; i < mine.size(); ++i) ASSERT_EQ(mine[i], static_cast<unsigned char>(me * 7 + i)) << i;
    if (me == root) EXPECT_EQ(back, all);
    if (ranks == 2 && c.base < 1000) {
      // Packed: one MPI message per bundle.
      EXPECT_EQ(result.stats.mpi_messages_sent + result.stats.mpi_messages_received, 1u);
    } else if (ranks == 2 && c.empties) {
      // Not packed: the header, then the one run of blocks (rank 0's; the root's is empty).
      EXPECT_EQ(result.stats.mpi_messages_sent + result.stats.mpi_messages_received, 2u);
      EXPECT_EQ(gathered.stats.mpi_messages_sent + gathered.stats.mpi_messages_received, 2u);
    }
  }
}

}  // namespace
