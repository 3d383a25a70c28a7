// serialized_test.cpp — below MPI_THREAD_MULTIPLE (docs/threads.md): MPI allows one thread
// in it at a time, so gsr refuses a call from a second thread while another thread is
// inside gsr (E-THREAD-CONCURRENT), whatever handle or call it is; the call already inside
// completes untouched, and once it has returned the second thread's calls work (what
// MPI_THREAD_SERIALIZED allows), requests started on another thread included.
#include <gsr/handle.hpp>
#include <gsr/transfer.hpp>

#include "catalogue.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

extern "C" int gsr_test_thread_level() { return MPI_THREAD_SERIALIZED; }

namespace {

using gsr::Op;
using gsr_test::world_rank;
using gsr_test::world_size;

// Rank 0's thread A is inside a call of handle `first`, waiting for rank 1, which comes late
// on purpose; rank 0's thread B calls another handle, then a transfer: both refused.
TEST(Serialized, ASecondThreadInsideGsrIsRefused) {
  const int rank = world_rank(), ranks = world_size();
  if (ranks < 2) GTEST_SKIP() << "needs a rank to wait for";
  std::vector<std::int64_t> ids{1, 2, 3};
  gsr::Handle first(ids, MPI_COMM_WORLD), second(ids, MPI_COMM_WORLD);
  std::vector<double> u{1, 2, 3}, v{1, 2, 3};
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::atomic<bool> entering{false};
    std::thread a([&] {
      entering = true;
      first.apply(std::span(u), Op::add);
    });
    while (!entering) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    gsr_errors::expect_entry(
        "E-THREAD-CONCURRENT", [&] { second.apply(std::span(v), Op::add); }, "gs");
    const std::vector<int> records{7}, destinations{0};
    gsr_errors::expect_entry(
        "E-THREAD-CONCURRENT", [&] { gsr::transfer(records, destinations, MPI_COMM_SELF); }, "transfer");
    a.join();
    EXPECT_EQ(v, (std::vector<double>{1, 2, 3})) << "a refused call must not touch its data";
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    first.apply(std::span(u), Op::add);
  }
  // One thread at a time, as MPI_THREAD_SERIALIZED allows: a call from a new thread works.
  std::thread later([&] { second.apply(std::span(v), Op::add); });
  later.join();
  EXPECT_EQ(u, (std::vector<double>{1.0 * ranks, 2.0 * ranks, 3.0 * ranks}));
  EXPECT_EQ(v, (std::vector<double>{1.0 * ranks, 2.0 * ranks, 3.0 * ranks}));
}

// One thread at a time, any thread: a request started on one thread is waited for on
// another, after a call of the same handle from a third (OpenMP `single` sections do this).
TEST(Serialized, ARequestMayBeWaitedForOnAnotherThread) {
  const int ranks = world_size();
  std::vector<std::int64_t> ids{4, 5};
  gsr::Handle h(ids, MPI_COMM_WORLD);
  std::vector<double> u{1, 2}, v{3, 4};
  gsr::Request request;
  std::thread([&] { request = h.start(std::span(u), Op::add); }).join();
  std::thread([&] { h.apply(std::span(v), Op::add); }).join();
  std::thread([&] { request.wait(); }).join();
  EXPECT_EQ(u, (std::vector<double>{1.0 * ranks, 2.0 * ranks}));
  EXPECT_EQ(v, (std::vector<double>{3.0 * ranks, 4.0 * ranks}));
}

}  // namespace
