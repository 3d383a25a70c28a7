// The polled collectives (mpi/polled.hpp): a rank that never joins costs the others
// Error(timeout), errors inside them return instead of going to the caller's handler, and
// the caller's handler is back afterwards; the node count matches MPI_Comm_split_type's.
#include "mpi/polled.hpp"
#include "transfer/sparse_exchange.hpp"

#include <gsr/error.hpp>
#include <gsr/handle.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace {

int handler_calls = 0;
void count_call(MPI_Comm*, int*, ...) { ++handler_calls; }

/// A duplicate of MPI_COMM_WORLD whose error handler counts its calls (and returns).
struct CountingComm {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  CountingComm() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_create_errhandler(count_call, &handler);
    MPI_Comm_set_errhandler(comm, handler);
  }
  ~CountingComm() {
    MPI_Comm_free(&comm);
    MPI_Errhandler_free(&handler);
  }
  /// A call MPI must refuse: a send to a rank the communicator does not have.
  int bad_call() const {
    int size = 0;
    MPI_Comm_size(comm, &size);
    return MPI_Send(nullptr, 0, MPI_BYTE, size + 5, 0, comm);
  }
};

TEST(Polled, ReturnErrorsSwitchesTheCallersHandlerOffAndBack) {
  CountingComm c;
  handler_calls = 0;
  {
    const gsr::detail::ReturnErrors outer(c.comm);
    {
      const gsr::detail::ReturnErrors inner(c.comm);  // nested (another thread's, say): counted
      EXPECT_NE(c.bad_call(), MPI_SUCCESS);
    }
    EXPECT_NE(c.bad_call(), MPI_SUCCESS);  // still off: the outer switch is open
    EXPECT_EQ(handler_calls, 0);
  }
  EXPECT_NE(c.bad_call(), MPI_SUCCESS);
  EXPECT_EQ(handler_calls, 1);  // the caller's handler is back
}

TEST(Polled, DuplicateKeepsTheCallersHandlerEvenUnderAnOpenSwitch) {
  CountingComm c;
  MPI_Comm dup = MPI_COMM_NULL;
  {
    const gsr::detail::ReturnErrors other_thread(c.comm);  // as if another thread's step were open
    dup = gsr::detail::dup_polled(c.comm, 10);
  }
  handler_calls = 0;
  int size = 0;
  MPI_Comm_size(dup, &size);
  EXPECT_NE(MPI_Send(nullptr, 0, MPI_BYTE, size + 5, 0, dup), MPI_SUCCESS);
  EXPECT_EQ(handler_calls, 1);
  MPI_Comm_free(&dup);
}

TEST(Polled, SetupLeavesTheCallersHandler) {
  CountingComm c;
  int rank = 0;
  MPI_Comm_rank(c.comm, &rank);
  const std::vector<std::int64_t> ids{1, 2 + rank};
  gsr::Handle handle(ids, c.comm);
  handler_calls = 0;
  EXPECT_NE(c.bad_call(), MPI_SUCCESS);
  EXPECT_EQ(handler_calls, 1);
}

TEST(Polled, ARankThatNeverJoinsCostsTheOthersTheTimeout) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ASSERT_GE(size, 2) << "registered at P >= 2";
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);  // the abandoned collective stays on this one
  if (rank == 0) {
    std::int64_t value = 1;
    const double begin = MPI_Wtime();
    try {
      gsr::detail::allreduce_polled(&value, 1, MPI_INT64_T, MPI_MAX, comm, 0.5);
      ADD_FAILURE() << "the allreduce completed without rank 1";
    } catch (const gsr::Error& e) {
      EXPECT_EQ(e.code(), gsr::ErrorCode::timeout) << e.what();
    }
    EXPECT_GE(MPI_Wtime() - begin, 0.5);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Setup's sparse exchanges (discovery's, allreduce's slot numbers) give up too when a rank
// never comes (the crystal router's routes: methods/setup_watched_test.cpp).
TEST(Polled, PointToPointStepsGiveUpOnARankThatNeverComes) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ASSERT_GE(size, 2) << "registered at P >= 2";
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);  // what is left pending stays on this one
  if (rank == 0) {
    const std::map<int, std::vector<std::int64_t>> outgoing{{1, {7, 8}}};
    try {
      gsr::detail::sparse_exchange(comm, 5, outgoing, 0, 0.5);
      ADD_FAILURE() << "the exchange completed without rank 1";
    } catch (const gsr::Error& e) {
      EXPECT_EQ(e.code(), gsr::ErrorCode::timeout) << e.what();
      EXPECT_NE(std::string(e.what()).find("to join this collective step"), std::string::npos) << e.what();
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(Polled, NodeCountMatchesSplitType) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int expected = 0;
  MPI_Comm_size(node, &expected);
  MPI_Comm_free(&node);
  EXPECT_EQ(gsr::detail::ranks_on_node_polled(MPI_COMM_WORLD, 10), expected);
}

TEST(Polled, CollectivesGiveMPIsResults) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Exscan of rank + 1: rank r gets r (r + 1) / 2.
  long long mine = rank + 1, before = -7;
  gsr::detail::exscan_polled(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, 10);
  if (rank > 0) EXPECT_EQ(before, static_cast<long long>(rank) * (rank + 1) / 2);
  // Alltoallv: rank r sends r + 1 copies of 100 r + s to each rank s.
  std::vector<int> send_counts(size, rank + 1), send_offsets(size), receive_counts(size), receive_offsets(size);
  std::vector<std::int64_t> out;
  for (int s = 0; s < size; ++s) {
    send_offsets[s] = static_cast<int>(out.size());
    out.insert(out.end(), rank + 1, 100 * rank + s);
    receive_counts[s] = s + 1;
    receive_offsets[s] = s == 0 ? 0 : receive_offsets[s - 1] + receive_counts[s - 1];
  }
  std::vector<std::int64_t> in(receive_offsets.back() + receive_counts.back(), -1);
  gsr::detail::alltoallv_polled(out.data(), send_counts.data(), send_offsets.data(), in.data(), receive_counts.data(),
                                receive_offsets.data(), MPI_INT64_T, MPI_COMM_WORLD, 10);
  for (int s = 0; s < size; ++s)
    for (int i = 0; i < s + 1; ++i) EXPECT_EQ(in[receive_offsets[s] + i], 100 * s + rank);
  // Broadcast from the last rank.
  int value = rank == size - 1 ? 42 : 0;
  gsr::detail::bcast_polled(&value, sizeof value, size - 1, MPI_COMM_WORLD, 10);
  EXPECT_EQ(value, 42);
}

}  // namespace
