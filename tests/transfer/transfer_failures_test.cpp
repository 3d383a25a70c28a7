// A rank that fails in the middle of a record transfer, scatter or gather (after the ranks
// agreed on the arguments), or never comes to the call, must leave no other rank waiting:
// every rank ends with an error — the failing rank its own, the others E-TRANSFER-REMOTE /
// E-SG-REMOTE naming it — or, for a rank that never comes, a timeout after GSR_TIMEOUT
// (E-TRANSFER-TIMEOUT, E-SG-TIMEOUT). Afterwards the caller's communicator still works.
// A failure midway is made with the failure seam (support/failure_seam.hpp: the n-th wait of
// the call on that rank throws std::bad_alloc, as a failed allocation would); run with
// GSR_TIMEOUT=3 at P >= 2.
#include <gsr/gs.h>
#include <gsr/scatter_gather.hpp>
#include <gsr/transfer.h>
#include <gsr/transfer.hpp>

#include "catalogue.hpp"
#include "failure_seam.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using gsr::TransferMethod;

/// The failing rank is the last one.
int failing_rank() { return gsr_test::world_size() - 1; }

/// GSR_TIMEOUT as the test runs it.
double timeout_seconds() {
  const char* text = std::getenv("GSR_TIMEOUT");
  return text ? std::atof(text) : 0.0;
}

/// Every rank sends `per` records to every rank (itself too): each method has several waits.
struct AllToAll {
  std::vector<std::int64_t> records;
  std::vector<int> destinations;
  std::vector<std::int64_t> received;

  explicit AllToAll(int per = 3) {
    const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
    for (int d = 0; d < ranks; ++d)
      for (int k = 0; k < per; ++k) {
        records.push_back(1000 * me + 10 * d + k);
        destinations.push_back(d);
      }
  }
  gsr::TransferResult run(TransferMethod method, MPI_Comm comm) {
    return gsr::transfer_bytes(
        records.data(), records.size(), sizeof(std::int64_t), destinations, comm,
        [this](std::size_t n) -> void* {
          received.resize(n);
          return received.data();
        },
        method);
  }
};

/// After a failure, a good transfer on `comm` delivers on every rank.
void expect_comm_works(MPI_Comm comm) {
  AllToAll a(1);
  const gsr::TransferResult result = a.run(TransferMethod::direct, comm);
  const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
  ASSERT_EQ(result.count, static_cast<std::size_t>(ranks));
  for (int s = 0; s < ranks; ++s) EXPECT_EQ(a.received[s], 1000 * s + 10 * me);
}

/// `call` runs on every rank; the failing rank's n-th wait fails. It must get `own` (an
/// entry id), the others `remote` naming it.
void expect_failure_everywhere(int n, const std::string& own, const std::string& remote,
                               const std::function<void()>& call, const std::string& what) {
  const int me = gsr_test::world_rank();
  const double started = MPI_Wtime();
  if (me == failing_rank()) {
    const gsr_test::FailAt failure(gsr_test::Point::wait, n);
    const std::string message = gsr_errors::expect_entry(own, call, what);
    EXPECT_NE(message.find("out of memory"), std::string::npos) << message;
  } else {
    const std::string message = gsr_errors::expect_entry(remote, call, what);
    EXPECT_NE(message.find("rank " + std::to_string(failing_rank()) + " failed: gsr: "), std::string::npos) << message;
    EXPECT_NE(message.find(": out of memory"), std::string::npos) << message;
  }
  // Told, not timed out.
  EXPECT_LT(MPI_Wtime() - started, timeout_seconds()) << what;
  expect_comm_works(MPI_COMM_WORLD);
}

TEST(TransferFailures, RankFailsMidwayInEveryMethod) {
  const int ranks = gsr_test::world_size();
  ASSERT_GE(ranks, 2);
  ASSERT_GT(timeout_seconds(), 0) << "run with GSR_TIMEOUT set";
  struct Case {
    TransferMethod method;
    int waits;  // how many waits the method makes on the failing rank (at P = 2 and more)
  };
  for (const Case c :
       {Case{TransferMethod::direct, 1}, Case{TransferMethod::crystal_router, 2}, Case{TransferMethod::two_round, 2}}) {
    for (int n = 1; n <= c.waits; ++n) {
      AllToAll a;
      expect_failure_everywhere(
          n, "E-TRANSFER-OUT-OF-MEMORY", "E-TRANSFER-REMOTE", [&] { a.run(c.method, MPI_COMM_WORLD); },
          std::string(gsr::to_string(c.method)) + ", wait " + std::to_string(n));
    }
  }
}

TEST(TransferFailures, RankFailsMidwayInScatterAndGather) {
  const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
  // Roots 0 (the failing rank is a leaf or inner rank) and the failing rank itself.
  for (const int root : {0, ranks - 1}) {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), 2);
    std::vector<double> data(static_cast<std::size_t>(2 * ranks), 1.5);
    std::vector<double> out;
    auto room = [&](std::size_t n) -> void* {
      out.resize(n);
      return out.data();
    };
    expect_failure_everywhere(
        1, "E-SG-OUT-OF-MEMORY", "E-SG-REMOTE",
        [&] { gsr::scatter_bytes(data.data(), data.size(), counts, sizeof(double), root, MPI_COMM_WORLD, room); },
        "scatter from root " + std::to_string(root));
    const std::vector<double> mine = {0.5 + me, 1.5 + me};
    expect_failure_everywhere(
        1, "E-SG-OUT-OF-MEMORY", "E-SG-REMOTE",
        [&] { gsr::gather_bytes(mine.data(), 2, sizeof(double), root, MPI_COMM_WORLD, room); },
        "gather to root " + std::to_string(root));
  }
}

TEST(TransferFailures, MakeRoomThrowsItsOwnException) {
  // The exception of a caller's make_room reaches that caller as it was; the others learn.
  const int me = gsr_test::world_rank();
  AllToAll a;
  auto call = [&] {
    gsr::transfer_bytes(
        a.records.data(), a.records.size(), sizeof(std::int64_t), a.destinations, MPI_COMM_WORLD,
        [&](std::size_t n) -> void* {
          if (me == failing_rank()) throw std::runtime_error("no room here");
          a.received.resize(n);
          return a.received.data();
        },
        TransferMethod::crystal_router);
  };
  if (me == failing_rank()) {
    EXPECT_THROW(
        try { call(); } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "no room here");
          throw;
        },
        std::runtime_error);
  } else {
    const std::string message = gsr_errors::expect_entry("E-TRANSFER-REMOTE", call, "make_room threw");
    EXPECT_NE(message.find("make_room threw: no room here"), std::string::npos) << message;
  }
  expect_comm_works(MPI_COMM_WORLD);
}

/// The failing rank does not come to the call at all (its communicator is MPI_COMM_NULL, a
/// C caller's mistake it cannot tell the others about): the others time out. Each case runs
/// on a communicator of its own, which the others' timed-out step leaves unusable.
void expect_lone_absence(const std::string& timeout_entry, const std::function<void(MPI_Comm)>& call,
                         const std::string& what) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const bool absent = gsr_test::world_rank() == failing_rank();
  const double started = MPI_Wtime();
  call(absent ? MPI_COMM_NULL : comm);
  const double waited = MPI_Wtime() - started;
  if (absent) {
    EXPECT_EQ(gsr_last_error(), GSR_ERR_INVALID_ARGUMENT) << what << ": " << gsr_last_error_message();
  } else {
    gsr_errors::expect_matches(timeout_entry, gsr_last_error(), gsr_last_error_message(), what);
    EXPECT_GE(waited, timeout_seconds() * 0.9) << what;
    EXPECT_LT(waited, timeout_seconds() * 3 + 5) << what;
  }
  gsr_clear_error();
  MPI_Barrier(MPI_COMM_WORLD);  // the abandoned communicator is never used again
}

TEST(TransferFailures, RankComesAfterTheOthersGaveUp) {
  // The last rank comes GSR_TIMEOUT + 1 s late: the others give up on the first step and
  // return E-TRANSFER-TIMEOUT; the late rank then completes that step alone with their
  // abandoned halves, and must not wait forever in the steps after it (the allreduce of the
  // record sizes, the duplicate) for ranks that have gone: it times out too.
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const bool late = gsr_test::world_rank() == failing_rank();
  if (late) {
    const double until = MPI_Wtime() + timeout_seconds() + 1;
    while (MPI_Wtime() < until) {
    }
  }
  AllToAll a(1);
  const double started = MPI_Wtime();
  const std::string message = gsr_errors::expect_entry(
      "E-TRANSFER-TIMEOUT", [&] { a.run(TransferMethod::direct, comm); }, late ? "late" : "early");
  EXPECT_LT(MPI_Wtime() - started, timeout_seconds() * 3 + 5) << message;
  MPI_Barrier(MPI_COMM_WORLD);  // the abandoned communicator is never used again
}

TEST(TransferFailures, RankNeverComesToTheCall) {
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  const int ranks = gsr_test::world_size();
  std::vector<int> destinations = {0};
  const double one = 2.5;
  expect_lone_absence(
      "E-TRANSFER-TIMEOUT",
      [&](MPI_Comm comm) {
        void* received = nullptr;
        int* sources = nullptr;
        std::size_t count = 0;
        gsr_transfer(&one, 1, sizeof one, destinations.data(), comm, GSR_TRANSFER_AUTO, &received, &sources, &count,
                     nullptr);
        std::free(received);
        std::free(sources);
      },
      "gsr_transfer");
  std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), 1);
  std::vector<double> data(static_cast<std::size_t>(ranks), 0.5);
  expect_lone_absence(
      "E-SG-TIMEOUT",
      [&](MPI_Comm comm) {
        void* block = nullptr;
        std::size_t count = 0;
        gsr_scatter(data.data(), counts.data(), sizeof(double), 0, comm, &block, &count, nullptr);
        std::free(block);
      },
      "gsr_scatter");
  expect_lone_absence(
      "E-SG-TIMEOUT",
      [&](MPI_Comm comm) {
        void* blocks = nullptr;
        std::int64_t* sizes = nullptr;
        gsr_gather(&one, 1, sizeof one, 0, comm, &blocks, &sizes, nullptr);
        std::free(blocks);
        std::free(sizes);
      },
      "gsr_gather");
  gsr_set_error_mode(GSR_ERRORS_ABORT);
}

}  // namespace
