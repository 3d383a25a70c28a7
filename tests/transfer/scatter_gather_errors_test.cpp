// Bad arguments to gsr::scatter / gsr::gather (and C gsr_scatter / gsr_gather) are an error on
// every rank: the rank at fault gets its entry of docs/errors.md (E-SG-*), the others
// E-SG-REMOTE naming it; disagreements are E-SG-DISAGREE-* everywhere. Nothing hangs, and a
// good call afterwards works. Codes and key words come from the page (tests/errors/catalogue.hpp).
#include <gsr/scatter_gather.hpp>
#include <gsr/transfer.h>

#include "catalogue.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using gsr_test::world_rank;
using gsr_test::world_size;

/// After a failed call the communicator is still usable: a scatter from the last rank
/// delivers every rank its own block.
void expect_good_scatter_after() {
  const int ranks = world_size();
  const std::vector<std::size_t> counts(static_cast<std::size_t>(ranks), 2);
  std::vector<int> all(2 * static_cast<std::size_t>(ranks));
  std::iota(all.begin(), all.end(), 100);
  const auto mine = gsr::scatter(all, counts, ranks - 1, MPI_COMM_WORLD);
  EXPECT_EQ(mine.block, (std::vector<int>{100 + 2 * world_rank(), 101 + 2 * world_rank()}));
}

/// Rank `culprit` calls `bad` and must get entry `id`; every other rank calls `good` and
/// must get E-SG-REMOTE naming the culprit. Then a good call on every rank. Returns the
/// message this rank got.
std::string expect_from(int culprit, const std::string& id, const std::function<void()>& bad,
                        const std::function<void()>& good) {
  std::string message;
  if (world_rank() == culprit) {
    message = gsr_errors::expect_entry(id, bad, id);
  } else {
    message = gsr_errors::expect_entry("E-SG-REMOTE", good, id + " elsewhere");
    EXPECT_NE(message.find("rank " + std::to_string(culprit) + " failed: gsr: "), std::string::npos) << message;
  }
  expect_good_scatter_after();
  return message;
}

const auto no_room = [](std::size_t) -> void* { return nullptr; };

TEST(ScatterGatherErrors, NullCommunicator) {
  gsr_errors::expect_entry(
      "E-SG-COMM-NULL", [] { gsr::gather(std::vector<int>(1), 0, MPI_COMM_NULL); }, "gather");
  gsr_errors::expect_entry(
      "E-SG-COMM-NULL", [] { gsr::scatter(std::vector<int>(1), std::vector<std::size_t>(1, 1), 0, MPI_COMM_NULL); },
      "scatter");
}

TEST(ScatterGatherErrors, RootOutsideTheCommunicator) {
  const int ranks = world_size();
  // The same bad root everywhere: every rank finds it itself.
  for (int root : {-1, ranks}) {
    const std::string message = gsr_errors::expect_entry(
        "E-SG-ROOT", [&] { gsr::gather(std::vector<int>(3), root, MPI_COMM_WORLD); }, "all");
    EXPECT_NE(message.find("gsr: gather: root " + std::to_string(root) + " "), std::string::npos) << message;
  }
  // Bad on the last rank only.
  const std::vector<std::size_t> counts(static_cast<std::size_t>(ranks), 1);
  const std::vector<int> all(static_cast<std::size_t>(ranks), 4);
  expect_from(
      ranks - 1, "E-SG-ROOT", [&] { gsr::scatter(all, counts, ranks + 3, MPI_COMM_WORLD); },
      [&] { gsr::scatter(all, counts, 0, MPI_COMM_WORLD); });
}

TEST(ScatterGatherErrors, ValueSizeZero) {
  std::vector<char> data(4);
  const auto room = [&](std::size_t) -> void* { return data.data(); };
  expect_from(
      0, "E-SG-VALUE-SIZE", [&] { gsr::gather_bytes(data.data(), 1, 0, 0, MPI_COMM_WORLD, room); },
      [&] { gsr::gather_bytes(data.data(), 1, 1, 0, MPI_COMM_WORLD, room); });
}

TEST(ScatterGatherErrors, CountsNumber) {
  const int ranks = world_size();
  const int root = ranks / 2;
  const std::vector<std::size_t> one_too_many(static_cast<std::size_t>(ranks) + 1, 1);
  const std::string message = expect_from(
      root, "E-SG-COUNTS-NUMBER",
      [&] { gsr::scatter(std::vector<int>(one_too_many.size()), one_too_many, root, MPI_COMM_WORLD); },
      [&] { gsr::scatter(std::vector<int>(), std::vector<std::size_t>(), root, MPI_COMM_WORLD); });
  if (world_rank() == root)
    EXPECT_NE(message.find("passed " + std::to_string(ranks + 1) + " counts for " + std::to_string(ranks) + " ranks"),
              std::string::npos)
        << message;
}

TEST(ScatterGatherErrors, NegativeCounts) {
  const int ranks = world_size();
  const int root = ranks / 2;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), 2);
  counts.back() = -4;
  std::vector<char> data(64);
  expect_from(
      root, "E-SG-COUNT-NEGATIVE",
      [&] { gsr::scatter_bytes(data.data(), data.size(), counts, 1, root, MPI_COMM_WORLD, no_room); },
      [&] { gsr::scatter_bytes(nullptr, 0, {}, 1, root, MPI_COMM_WORLD, no_room); });
  // A gather's count is every rank's own: here the last rank's is negative.
  expect_from(
      ranks - 1, "E-SG-COUNT-NEGATIVE", [&] { gsr::gather_bytes(data.data(), -1, 1, 0, MPI_COMM_WORLD, no_room); },
      [&] { gsr::gather_bytes(data.data(), 2, 1, 0, MPI_COMM_WORLD, no_room); });
}

TEST(ScatterGatherErrors, CountsDoNotAddUp) {
  const int ranks = world_size();
  const std::vector<std::size_t> three_each(static_cast<std::size_t>(ranks), 3);
  expect_from(
      0, "E-SG-COUNTS-SUM", [&] { gsr::scatter(std::vector<int>(5), three_each, 0, MPI_COMM_WORLD); },
      [&] { gsr::scatter(std::vector<int>(), std::vector<std::size_t>(), 0, MPI_COMM_WORLD); });
}

TEST(ScatterGatherErrors, TooLarge) {
  const int ranks = world_size();
  const auto huge = std::numeric_limits<std::int64_t>::max() / 2;
  std::vector<char> data(8);
  expect_from(
      ranks - 1, "E-SG-TOO-LARGE", [&] { gsr::gather_bytes(data.data(), huge, 8, 0, MPI_COMM_WORLD, no_room); },
      [&] { gsr::gather_bytes(data.data(), 1, 8, 0, MPI_COMM_WORLD, no_room); });
  const std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), huge);  // P * 8 * huge > 2^64
  expect_from(
      0, "E-SG-TOO-LARGE",
      [&] { gsr::scatter_bytes(data.data(), gsr::unknown_length, counts, 8, 0, MPI_COMM_WORLD, no_room); },
      [&] { gsr::scatter_bytes(nullptr, 0, {}, 8, 0, MPI_COMM_WORLD, no_room); });
  // A value size no object can have, with counts of 1 (their product alone would fit): every
  // rank finds it itself.
  const std::size_t widest = std::numeric_limits<std::size_t>::max();
  const std::vector<std::int64_t> ones(static_cast<std::size_t>(ranks), 1);
  std::vector<char> one(8);
  const std::string message = gsr_errors::expect_entry(
      "E-SG-TOO-LARGE",
      [&] { gsr::scatter_bytes(one.data(), gsr::unknown_length, ones, widest, 0, MPI_COMM_WORLD, no_room); },
      "value size SIZE_MAX");
  EXPECT_NE(message.find("the value size (value_bytes) " + std::to_string(widest)), std::string::npos) << message;
  expect_good_scatter_after();
}

TEST(ScatterGatherErrors, NullPointers) {
  const int ranks = world_size();
  std::vector<char> data(8);
  const auto room = [&](std::size_t) -> void* { return data.data(); };
  // Data NULL with values to send.
  expect_from(
      ranks - 1, "E-SG-NULL", [&] { gsr::gather_bytes(nullptr, 3, 1, 0, MPI_COMM_WORLD, room); },
      [&] { gsr::gather_bytes(data.data(), 0, 1, 0, MPI_COMM_WORLD, room); });
  const std::vector<std::int64_t> ones(static_cast<std::size_t>(ranks), 1);
  expect_from(
      0, "E-SG-NULL", [&] { gsr::scatter_bytes(nullptr, gsr::unknown_length, ones, 1, 0, MPI_COMM_WORLD, room); },
      [&] { gsr::scatter_bytes(nullptr, 0, {}, 1, 0, MPI_COMM_WORLD, room); });
  // No room for the result: checked on every rank, also a gather's non-root.
  const int not_root = ranks - 1;
  expect_from(
      not_root, "E-SG-NULL", [&] { gsr::gather_bytes(data.data(), 1, 1, 0, MPI_COMM_WORLD, nullptr); },
      [&] { gsr::gather_bytes(data.data(), 1, 1, 0, MPI_COMM_WORLD, room); });
}

TEST(ScatterGatherErrors, NoRoomForWhatArrived) {
  // make_room gives NULL on one rank: that rank reports it once the messages are done, the
  // others learn of it (E-SG-REMOTE), and the next call works.
  const int ranks = world_size();
  const int me = world_rank();
  const int victim = ranks - 1;
  std::vector<double> all(3 * static_cast<std::size_t>(ranks), 2.5);
  const std::vector<std::int64_t> threes(static_cast<std::size_t>(ranks), 3);
  std::vector<double> mine(3);
  const auto room = [&](std::size_t n) -> void* { return me == victim ? nullptr : (mine.resize(n), mine.data()); };
  const auto scatter = [&] {
    gsr::scatter_bytes(all.data(), all.size(), threes, sizeof(double), 0, MPI_COMM_WORLD, room);
  };
  if (me == victim) {
    const std::string message = gsr_errors::expect_entry("E-SG-NO-ROOM", scatter, "scatter");
    EXPECT_NE(message.find("for 3 values of 8 bytes"), std::string::npos) << message;
  } else {
    const std::string message = gsr_errors::expect_entry("E-SG-REMOTE", scatter, "scatter elsewhere");
    EXPECT_NE(message.find("rank " + std::to_string(victim) + " failed: gsr: scatter: make_room returned NULL"),
              std::string::npos)
        << message;
  }
  // A gather's root with no room.
  const double value = 1.0;
  const auto gather = [&] { gsr::gather_bytes(&value, 1, sizeof value, victim, MPI_COMM_WORLD, room); };
  gsr_errors::expect_entry(me == victim ? "E-SG-NO-ROOM" : "E-SG-REMOTE", gather, "gather");
  expect_good_scatter_after();
}

TEST(ScatterGatherErrors, MakeRoomThrows) {
  // make_room throws on one rank (a leaf of the scatter, then the gather's root): the
  // messages still complete (no rank waits), that rank gets make_room's exception, the
  // others E-SG-REMOTE quoting it, and the next call works. Blocks over 16 KiB travel apart from
  // their header, so the sender really waits for the receive.
  const int ranks = world_size();
  const int me = world_rank();
  const int victim = ranks - 1;
  constexpr std::size_t m = 8192;  // 64 KiB of doubles per rank
  std::vector<double> all(m * static_cast<std::size_t>(ranks), 0.5);
  const std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), static_cast<std::int64_t>(m));
  std::vector<double> mine;
  const auto room = [&](std::size_t n) -> void* {
    if (me == victim) throw std::runtime_error("no room here");
    mine.resize(n);
    return mine.data();
  };
  const auto scatter = [&] {
    gsr::scatter_bytes(all.data(), all.size(), counts, sizeof(double), 0, MPI_COMM_WORLD, room);
  };
  const auto gather = [&] { gsr::gather_bytes(all.data(), m, sizeof(double), victim, MPI_COMM_WORLD, room); };
  for (const auto& call : {std::function<void()>(scatter), std::function<void()>(gather)}) {
    if (me == victim) {
      try {
        call();
        ADD_FAILURE() << "rank " << me << ": make_room's exception was not passed on";
      } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "no room here");
      }
    } else {
      const std::string message = gsr_errors::expect_entry("E-SG-REMOTE", call, "make_room threw elsewhere");
      EXPECT_NE(message.find("make_room threw: no room here"), std::string::npos) << message;
    }
  }
  expect_good_scatter_after();
}

TEST(ScatterGatherErrors, CNullOutputs) {
  // C: a NULL output pointer on the last rank is E-SG-NULL there, E-SG-REMOTE elsewhere, and
  // every output is left NULL / 0.
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  const int ranks = world_size();
  const int me = world_rank();
  const double value = me + 0.25;
  void* blocks = reinterpret_cast<void*>(1);
  std::int64_t* counts = reinterpret_cast<std::int64_t*>(1);
  const int code =
      gsr_gather(&value, 1, sizeof value, 0, MPI_COMM_WORLD, &blocks, me == ranks - 1 ? nullptr : &counts, nullptr);
  EXPECT_NE(code, GSR_SUCCESS);
  gsr_errors::expect_c_entry(me == ranks - 1 ? "E-SG-NULL" : "E-SG-REMOTE", "gsr_gather", "C gather");
  EXPECT_EQ(blocks, nullptr);
  if (me != ranks - 1) EXPECT_EQ(counts, nullptr);

  std::vector<std::int64_t> sizes(static_cast<std::size_t>(ranks), 1);
  std::vector<double> all(static_cast<std::size_t>(ranks), 1.0);
  void* block = reinterpret_cast<void*>(1);
  std::size_t count = 7;
  const int scatter_code = gsr_scatter(all.data(), sizes.data(), sizeof(double), 0, MPI_COMM_WORLD,
                                       me == ranks - 1 ? nullptr : &block, &count, nullptr);
  EXPECT_NE(scatter_code, GSR_SUCCESS);
  gsr_errors::expect_c_entry(me == ranks - 1 ? "E-SG-NULL" : "E-SG-REMOTE", "gsr_scatter", "C scatter");
  if (me != ranks - 1) EXPECT_EQ(block, nullptr);
  EXPECT_EQ(count, 0u);
  gsr_set_error_mode(GSR_ERRORS_ABORT);
  expect_good_scatter_after();
}

TEST(ScatterGatherErrors, RanksDisagreeAboutTheRoot) {
  const int ranks = world_size();
  const int root = world_rank() == 0 ? 0 : ranks - 1;  // rank 0 names itself, the rest the last rank
  if (ranks == 1) {                                    // one rank cannot disagree with itself: the call works
    EXPECT_EQ(gsr::gather(std::vector<double>(2, 1.0), root, MPI_COMM_WORLD).counts, std::vector<std::size_t>{2});
    return;
  }
  const std::string message = gsr_errors::expect_entry(
      "E-SG-DISAGREE-ROOT", [&] { gsr::gather(std::vector<double>(2, 1.0), root, MPI_COMM_WORLD); }, "roots");
  EXPECT_NE(message.find("this rank passed " + std::to_string(root) + ", the ranks passed roots from 0 to " +
                         std::to_string(ranks - 1)),
            std::string::npos)
      << message;
  expect_good_scatter_after();
}

TEST(ScatterGatherErrors, RanksDisagreeAboutTheValueSize) {
  if (world_size() == 1) {  // rank 0 alone: 4-byte values, no disagreement
    EXPECT_EQ(gsr::gather(std::vector<std::int32_t>(2), 0, MPI_COMM_WORLD).counts, std::vector<std::size_t>{2});
    return;
  }
  const std::string message = gsr_errors::expect_entry(
      "E-SG-DISAGREE-SIZE",
      [&] {
        if (world_rank() == 0)
          gsr::gather(std::vector<std::int32_t>(2), 0, MPI_COMM_WORLD);
        else
          gsr::gather(std::vector<double>(2), 0, MPI_COMM_WORLD);
      },
      "sizes");
  EXPECT_NE(message.find("sizes from 4 to 8"), std::string::npos) << message;
  expect_good_scatter_after();
}

}  // namespace
