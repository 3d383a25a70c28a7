// One rank fails on purpose (support/failure_seam.hpp: std::bad_alloc, as a failed
// allocation would) at a point where the other ranks once went on without hearing of it:
// - the scatter's tree steps, computed after the duplicate (scatter_steps);
// - taking the call's duplicate communicator over, once MPI made it (transfer, scatter,
//   gather, setup, make_unique);
// - between two chunks of a message, whose receiver, having matched the first chunk, waited
//   for the rest in a blocking MPI_Mprobe that no failure notice could end.
// Every rank must end with an error at once: the failing rank its own, the others `remote`
// naming it. Run with GSR_TIMEOUT=60 under a test limit of 20 s, so a rank that waits for the
// timeout (or forever) fails the test; each case also checks its own time.
#include <gsr/handle.hpp>
#include <gsr/scatter_gather.hpp>
#include <gsr/transfer.hpp>

#include "catalogue.hpp"
#include "failure_seam.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace {

using gsr::TransferMethod;
using gsr_test::Point;

/// The failing rank is the last one.
int failing_rank() { return gsr_test::world_size() - 1; }

/// Well below GSR_TIMEOUT (60 s): a rank told at once takes milliseconds.
constexpr double told_at_once = 10.0;

/// `call` runs on every rank with `point` armed on the failing rank (its n-th time). The
/// failing rank must throw `own` (an entry id) with `own_words` in its message, the others
/// `remote` naming it and quoting `own_words`; none may wait for GSR_TIMEOUT. Afterwards a
/// transfer on the caller's communicator works.
void expect_told_at_once(Point point, int n, const std::string& own, const std::string& own_words,
                         const std::string& remote, const std::function<void()>& call, const std::string& what) {
  const int me = gsr_test::world_rank();
  const double started = MPI_Wtime();
  if (me == failing_rank()) {
    const gsr_test::FailAt failure(point, n);
    const std::string message = gsr_errors::expect_entry(own, call, what);
    EXPECT_NE(message.find(own_words), std::string::npos) << what << ": " << message;
  } else {
    const std::string message = gsr_errors::expect_entry(remote, call, what);
    EXPECT_NE(message.find("rank " + std::to_string(failing_rank()) + " failed: gsr: "), std::string::npos)
        << what << ": " << message;
    EXPECT_NE(message.find(own_words), std::string::npos) << what << ": " << message;
  }
  EXPECT_LT(MPI_Wtime() - started, told_at_once) << what;

  // The caller's communicator still works: every rank sends its rank to every rank.
  const int ranks = gsr_test::world_size();
  std::vector<std::int64_t> records, received;
  std::vector<int> destinations;
  for (int d = 0; d < ranks; ++d) {
    records.push_back(100 * me + d);
    destinations.push_back(d);
  }
  const gsr::TransferResult result = gsr::transfer_bytes(
      records.data(), records.size(), sizeof(std::int64_t), destinations, MPI_COMM_WORLD,
      [&](std::size_t count) -> void* {
        received.resize(count);
        return received.data();
      },
      TransferMethod::direct);
  ASSERT_EQ(result.count, static_cast<std::size_t>(ranks)) << what;
  for (int s = 0; s < ranks; ++s) EXPECT_EQ(received[s], 100 * s + me) << what;
}

/// Scatter and gather of two doubles per rank from / to `root`.
struct Tree {
  std::vector<std::int64_t> counts = std::vector<std::int64_t>(static_cast<std::size_t>(gsr_test::world_size()), 2);
  std::vector<double> data = std::vector<double>(static_cast<std::size_t>(2 * gsr_test::world_size()), 1.5);
  std::vector<double> mine = {0.5, 2.5};
  std::vector<double> out;
  std::function<void*(std::size_t)> room = [this](std::size_t n) -> void* {
    out.resize(n);
    return out.data();
  };
  void scatter(int root) {
    gsr::scatter_bytes(data.data(), data.size(), counts, sizeof(double), root, MPI_COMM_WORLD, room);
  }
  void gather(int root) { gsr::gather_bytes(mine.data(), 2, sizeof(double), root, MPI_COMM_WORLD, room); }
};

TEST(OneRankFailures, ScatterStepsRunOutOfMemory) {
  for (const int root : {0, failing_rank()}) {
    Tree tree;
    const std::string at = " (root " + std::to_string(root) + ")";
    expect_told_at_once(
        Point::scatter_steps, 1, "E-SG-OUT-OF-MEMORY", "gsr: scatter: out of memory", "E-SG-REMOTE",
        [&] { tree.scatter(root); }, "scatter" + at);
    expect_told_at_once(
        Point::scatter_steps, 1, "E-SG-OUT-OF-MEMORY", "gsr: gather: out of memory", "E-SG-REMOTE",
        [&] { tree.gather(root); }, "gather" + at);
  }
}

/// Every rank sends `per` records of 8 bytes to every rank.
struct AllToAll {
  std::vector<std::int64_t> records, received;
  std::vector<int> destinations;

  explicit AllToAll(int per) {
    const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
    for (int d = 0; d < ranks; ++d)
      for (int k = 0; k < per; ++k) {
        records.push_back(1000 * me + k);
        destinations.push_back(d);
      }
  }
  void run(TransferMethod method, std::size_t chunk_bytes = 0) {
    gsr::TransferOptions options;
    options.method = method;
    options.messages.chunk_bytes = chunk_bytes;
    gsr::transfer_bytes(
        records.data(), records.size(), sizeof(std::int64_t), destinations, MPI_COMM_WORLD,
        [this](std::size_t n) -> void* {
          received.resize(n);
          return received.data();
        },
        options);
  }
};

TEST(OneRankFailures, DuplicateFailsInTransferScatterGather) {
  AllToAll a(2);
  expect_told_at_once(
      Point::duplicate, 1, "E-TRANSFER-OUT-OF-MEMORY", "gsr: transfer: out of memory", "E-TRANSFER-REMOTE",
      [&] { a.run(TransferMethod::crystal_router); }, "transfer");
  Tree tree;
  expect_told_at_once(
      Point::duplicate, 1, "E-SG-OUT-OF-MEMORY", "gsr: scatter: out of memory", "E-SG-REMOTE", [&] { tree.scatter(0); },
      "scatter");
  expect_told_at_once(
      Point::duplicate, 1, "E-SG-OUT-OF-MEMORY", "gsr: gather: out of memory", "E-SG-REMOTE", [&] { tree.gather(0); },
      "gather");
}

TEST(OneRankFailures, DuplicateFailsInSetupAndMakeUnique) {
  // Every rank holds ids 1 to 4: all shared.
  const std::string duplicate = "gsr: out of memory taking over a duplicate of the communicator";
  expect_told_at_once(
      Point::duplicate, 1, "E-INTERNAL", duplicate, "E-SETUP-REMOTE",
      [&] {
        const std::vector<std::int64_t> ids = {1, 2, 3, 4};
        const gsr::Handle handle(ids, MPI_COMM_WORLD);
      },
      "setup");
  expect_told_at_once(
      Point::duplicate, 1, "E-INTERNAL", duplicate, "E-SETUP-REMOTE",
      [&] {
        std::vector<std::int64_t> ids = {1, 2, 3, 4};
        gsr::make_unique(ids, MPI_COMM_WORLD);
      },
      "make_unique");
}

TEST(OneRankFailures, MessageCutOffBetweenItsChunks) {
  // 40 records of 8 bytes per destination in chunks of 64 bytes: every message between two
  // ranks comes in several chunks, and the failing rank stops after the first chunk of its
  // first one. Its receiver has matched that chunk and waits for the rest.
  for (const TransferMethod method :
       {TransferMethod::direct, TransferMethod::crystal_router, TransferMethod::two_round}) {
    AllToAll a(40);
    expect_told_at_once(
        Point::chunk, 1, "E-TRANSFER-OUT-OF-MEMORY", "gsr: transfer: out of memory", "E-TRANSFER-REMOTE",
        [&] { a.run(method, 64); }, "chunks, " + std::string(gsr::to_string(method)));
  }
}

}  // namespace
