// Copy consistency (docs/concepts.md, "The canonical order"): one id shared by three ranks holding 1e16, 1 and -1e16.
// The sum depends on the order of the additions ((1e16 + 1) - 1e16 = 0, (1e16 - 1e16) + 1 = 1),
// so every copy being bitwise equal shows that all ranks combine in one order, and the value
// shows it is the canonical one (ascending rank order). At P = 4 rank 3 does not hold the id.
#include <gsr/handle.hpp>

#include "method_param.hpp"
#include "world.hpp"
#include "reference.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using gsr::Op;
using gsr::Transpose;

constexpr std::int64_t shared_id = 42;

using gsr_test::world_rank;
using gsr_test::world_size;

/// Ranks 0-2: {7 + rank, 42, 100 + rank}; rank 3 and beyond: ids nobody else holds.
std::vector<std::int64_t> ids_of(int rank) {
  if (rank < 3) return {7 + rank, shared_id, 100 + rank};
  return {1000 + rank, 2000 + rank};
}

template <class T>
std::vector<T> values_of(int rank, const std::array<T, 3>& big) {
  if (rank < 3) return {T(rank + 1), big[static_cast<std::size_t>(rank)], T(-rank - 1)};
  return {T(5), T(6)};
}

/// Runs one call and checks: every rank's copy of id 42 is bitwise equal, and equals the
/// reference (canonical order); the other entries are untouched.
template <class T>
void check(gsr::Handle& h, const std::array<T, 3>& big, Op op, bool nonblocking, const std::string& label) {
  const int rank = world_rank();
  const std::vector<std::int64_t> ids = ids_of(rank);
  const std::vector<T> input = values_of<T>(rank, big);
  std::vector<T> v = input;
  if (nonblocking) {
    gsr::Request req = h.start(std::span<T>(v), op);
    req.wait();
  } else {
    h.apply(std::span<T>(v), op);
  }

  // Every copy of the shared id, on every rank.
  const T mine = rank < 3 ? v[1] : T(0);
  const gsr_test::PerRank<T> copies =
      gsr_test::allgather<T>(std::span<const T>(&mine, rank < 3 ? 1 : 0), MPI_COMM_WORLD);
  for (int r = 1; r < 3; ++r)
    EXPECT_TRUE(gsr_test::same_bits(copies[0][0], copies[static_cast<std::size_t>(r)][0]))
        << label << ": rank 0 has " << copies[0][0] << ", rank " << r << " has "
        << copies[static_cast<std::size_t>(r)][0];

  const std::vector<T> want = gsr_test::expected<T>(ids, input, 1, op, Transpose::no, MPI_COMM_WORLD);
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_TRUE(gsr_test::same_bits(want[i], v[i]))
        << label << ": rank " << rank << " entry " << i << ": expected " << want[i] << ", got " << v[i];
}

class CopyConsistency : public ::testing::TestWithParam<gsr::Method> {
protected:
  void SetUp() override { ASSERT_GE(world_size(), 3) << "needs three ranks holding the id"; }
};

TEST_P(CopyConsistency, ThreeRanksSumInOneOrder) {
  gsr::Handle h(ids_of(world_rank()), MPI_COMM_WORLD, gsr_test::with_method(GetParam()));
  std::array<double, 3> values = {1e16, 1.0, -1e16};
  std::sort(values.begin(), values.end());
  // Every assignment of the three values to the three ranks, blocking and non-blocking.
  do {
    const std::string label = std::string(gsr::to_string(GetParam())) + " values (" + std::to_string(values[0]) + ", " +
                              std::to_string(values[1]) + ", " + std::to_string(values[2]) + ")";
    check<double>(h, values, Op::add, false, label + " double add");
    check<double>(h, values, Op::add, true, label + " double add (start/wait)");
    const std::array<float, 3> single = {float(values[0]), float(values[1]), float(values[2])};
    check<float>(h, single, Op::add, false, label + " float add");
  } while (std::next_permutation(values.begin(), values.end()));
}

// 1e16, 1 and -1e16 on ranks 0, 1, 2 (the case of docs/concepts.md) give exactly 0:
// (1e16 + 1) rounds to 1e16, then - 1e16.
TEST_P(CopyConsistency, SeedAssignmentGivesZero) {
  const int rank = world_rank();
  gsr::Handle h(ids_of(rank), MPI_COMM_WORLD, gsr_test::with_method(GetParam()));
  std::vector<double> v = values_of<double>(rank, {1e16, 1.0, -1e16});
  h.apply(std::span<double>(v), Op::add);
  if (rank < 3) {
    EXPECT_EQ(v[1], 0.0) << "rank " << rank;
  }
}

TEST_P(CopyConsistency, MulOfNearOneValues) {
  gsr::Handle h(ids_of(world_rank()), MPI_COMM_WORLD, gsr_test::with_method(GetParam()));
  check<double>(h, {1.0 + 1e-15, 3.0 / 7.0, 7.0 / 3.0}, Op::mul, false, "double mul");
  check<double>(h, {0.1, 0.7, 1.3}, Op::mul, true, "double mul (start/wait)");
}

INSTANTIATE_TEST_SUITE_P(Methods, CopyConsistency, ::testing::ValuesIn(gsr::registered_methods()),
                         gsr_test::method_name);

}  // namespace
