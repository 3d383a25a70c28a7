// Progress across handles: requests of two handles in flight at once, waited in opposite
// orders on neighbouring ranks; and gsr::progress, the user's own call. With a method whose later messages are sent
// only while a request advances (the crystal router's stages after the first, allreduce's second collective), this
// hangs unless waiting on one handle also advances the other. Values are 64-bit integers, so the expected sums are
// exact and derived by hand below.
#include "world.hpp"

#include <gsr/handle.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using gsr::Method;
using gsr_test::world_rank;
using gsr_test::world_size;

constexpr std::int64_t block = 4;  // ids per rank block

// Ring: rank r holds block r and block r+1 (mod P) of `stride`-spaced ids, so each id is
// held by two ranks, r and r-1 (one rank alone holds both copies when P = 1).
std::vector<std::int64_t> ring_ids(std::int64_t offset) {
  const int p = world_size(), r = world_rank();
  std::vector<std::int64_t> ids;
  for (int b : {r, (r + 1) % p})
    for (std::int64_t j = 0; j < block; ++j) ids.push_back(offset + b * block + j + 1);
  return ids;
}

// Entry i of rank r holds (r + 1) * 1000 + id * scale; the sum over the two holders of id
// g in block b (ranks b and b - 1 mod P) follows.
std::int64_t value(int rank, std::int64_t id, std::int64_t scale) { return (rank + 1) * 1000 + id * scale; }
std::int64_t expected_sum(std::int64_t id, std::int64_t offset, std::int64_t scale) {
  const int p = world_size();
  const int b = static_cast<int>((id - offset - 1) / block);
  return value(b, id, scale) + value((b - 1 + p) % p, id, scale);
}

// Two handles on rings of their own ids, and one call's arrays for each test: u and v, one
// value per entry on a and b, and w, two components (16-byte rows, for allreduce's second
// collective) on a.
struct TwoHandles {
  static constexpr std::int64_t offset_a = 0, offset_b = 1000000;
  const std::vector<std::int64_t> ids_a = ring_ids(offset_a), ids_b = ring_ids(offset_b);
  gsr::Handle a, b;
  std::vector<std::int64_t> u, v, w;

  explicit TwoHandles(Method method)
      : a(ids_a, MPI_COMM_WORLD, options(method)), b(ids_b, MPI_COMM_WORLD, options(method)) {}
  static gsr::SetupOptions options(Method method) {
    gsr::SetupOptions o;
    o.method = method;
    return o;
  }
  void fill() {
    u.assign(ids_a.size(), 0);
    v.assign(ids_b.size(), 0);
    w.assign(2 * ids_a.size(), 0);
    for (std::size_t i = 0; i < ids_a.size(); ++i) {
      u[i] = value(world_rank(), ids_a[i], 1);
      w[2 * i] = value(world_rank(), ids_a[i], 5);
      w[2 * i + 1] = value(world_rank(), ids_a[i], 7);
    }
    for (std::size_t i = 0; i < ids_b.size(); ++i) v[i] = value(world_rank(), ids_b[i], 3);
  }
  void expect_sums(const std::string& when) const {
    for (std::size_t i = 0; i < ids_a.size(); ++i) {
      EXPECT_EQ(u[i], expected_sum(ids_a[i], offset_a, 1)) << "handle a, entry " << i << when;
      EXPECT_EQ(w[2 * i], expected_sum(ids_a[i], offset_a, 5)) << "handle a k=2, entry " << i << when;
      EXPECT_EQ(w[2 * i + 1], expected_sum(ids_a[i], offset_a, 7)) << "handle a k=2, entry " << i << when;
    }
    for (std::size_t i = 0; i < ids_b.size(); ++i)
      EXPECT_EQ(v[i], expected_sum(ids_b[i], offset_b, 3)) << "handle b, entry " << i << when;
  }
};

class Progress : public ::testing::TestWithParam<Method> {};

TEST_P(Progress, TwoHandlesWaitedInOppositeOrders) {
  TwoHandles h(GetParam());
  for (int round = 0; round < 3; ++round) {
    h.fill();
    gsr::Request ra = h.a.start(std::span(h.u), gsr::Op::add);
    gsr::Request rb = h.b.start(std::span(h.v), gsr::Op::add);
    gsr::Request rw = h.a.start_vec(std::span(h.w), 2, gsr::Op::add);
    if (world_rank() % 2 == 0) {
      ra.wait();
      rw.wait();
      rb.wait();
    } else {
      rb.wait();
      rw.wait();
      ra.wait();
    }
    h.expect_sums(", round " + std::to_string(round));
  }
}

// gsr::progress, called by the user between start and wait, finishes every call's messages
// before the waits: once it says so on every rank, the even ranks wait while the odd ones
// sit in a barrier, where no gsr code runs; a wait that still needed another rank's gsr
// progress (the crystal router's later stages at P >= 3, allreduce's second collective, the
// neighbour method's collective) would hang, and ctest's timeout fails it. (Pairwise's
// messages would also move in MPI's barrier, so for it only the values are checked.)
TEST_P(Progress, PublicProgressFinishesTheMessagesBeforeTheWaits) {
  TwoHandles h(GetParam());
  EXPECT_TRUE(gsr::progress()) << "nothing in flight";
  h.fill();
  gsr::Request ra = h.a.start(std::span(h.u), gsr::Op::add);
  gsr::Request rw = h.a.start_vec(std::span(h.w), 2, gsr::Op::add);
  gsr::Request rb = h.b.start(std::span(h.v), gsr::Op::add);
  // Until every rank's progress says done (or 30 s pass on rank 0's clock, for all).
  const double deadline = MPI_Wtime() + 30;
  int all_done = 0;
  for (int late = 0; !all_done && !late;) {
    int done = gsr::progress() ? 1 : 0;
    late = world_rank() == 0 && MPI_Wtime() > deadline ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &done, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &late, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    all_done = done;
  }
  ASSERT_TRUE(all_done) << "gsr::progress did not finish the messages on every rank within 30 s";
  EXPECT_EQ(h.a.pending_requests(), 2u) << "progress leaves the requests to their waits";

  if (world_rank() % 2 == 1) MPI_Barrier(MPI_COMM_WORLD);
  rb.wait();
  ra.wait();
  rw.wait();
  if (world_rank() % 2 == 0) MPI_Barrier(MPI_COMM_WORLD);
  h.expect_sums("");
  EXPECT_TRUE(gsr::progress()) << "nothing in flight after the waits";
}

INSTANTIATE_TEST_SUITE_P(Methods, Progress, ::testing::ValuesIn(gsr::registered_methods()),
                         [](const ::testing::TestParamInfo<Method>& info) {
                           return std::string(gsr::to_string(info.param));
                         });

}  // namespace
