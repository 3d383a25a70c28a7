// Groups of every local size, against sums derived by hand, for every method and call kind.
// Each rank holds shared ids with 1 to 12 local copies each, and ids of its own with as
// many, interleaved so that no group's copies are neighbours. Groups of up to 8 local
// entries go through the fixed-size kernels (Plan::shared_runs, Plan::fixed_runs), larger
// ones through the general ones (shared_other_rows), which Stats counts; at P = 2 pairwise folds two blocks row
// for row (CombineMap::paired) and gathers into its send buffer. Integer sums are exact, so
// each expected value is the plain sum of the copies' values, on every rank.
#include "methods_support.hpp"

#include <array>

namespace {

using gsr::Op;
using methods_test::world_rank;
using methods_test::world_size;

constexpr int largest = 12;  // local copies of the largest group

std::int64_t shared_id(int size) { return 1000 + size; }
std::int64_t own_id(int size, int rank) { return 2000 + size + 100 * rank; }

/// The same layout on every rank: repetition by repetition, one copy of each group still
/// short of its size; then a lone id.
std::vector<std::int64_t> ids_of(int rank) {
  std::vector<std::int64_t> ids;
  for (int rep = 0; rep < largest; ++rep)
    for (int size = 1; size <= largest; ++size)
      if (rep < size) {
        ids.push_back(shared_id(size));
        ids.push_back(own_id(size, rank));
      }
  ids.push_back(5000 + rank);
  return ids;
}

/// Component c of entry i on `rank` (k components).
std::int64_t value(int rank, std::size_t i, std::size_t k, std::size_t c) {
  return (static_cast<std::int64_t>(rank) + 1) * 100000 + static_cast<std::int64_t>(i * k + c);
}

/// What every copy of the entry i's id holds after an add over all ranks: component c is
/// component 0's sum plus c for each copy (value() grows by one per component).
std::vector<std::int64_t> expected(std::size_t k) {
  const int rank = world_rank();
  const std::vector<std::int64_t> ids = ids_of(rank);
  std::vector<std::int64_t> out(ids.size() * k);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::int64_t sum = 0, copies = 0;
    const bool shared = ids[i] < 2000;
    for (int r = 0; r < world_size(); ++r) {
      if (!shared && r != rank) continue;
      const std::vector<std::int64_t> theirs = ids_of(r);
      for (std::size_t j = 0; j < theirs.size(); ++j)
        if (theirs[j] == ids[i]) {
          sum += value(r, j, k, 0);
          ++copies;
        }
    }
    for (std::size_t c = 0; c < k; ++c) out[i * k + c] = sum + copies * static_cast<std::int64_t>(c);
  }
  return out;
}

class GroupSizes : public ::testing::TestWithParam<gsr::Method> {};

TEST_P(GroupSizes, EverySizeByHand) {
  const int rank = world_rank();
  const std::vector<std::int64_t> ids = ids_of(rank);
  const std::size_t n = ids.size();
  gsr::Handle h(ids, MPI_COMM_WORLD, methods_test::with_method(GetParam()));
  const std::string name(gsr::to_string(GetParam()));
  // Groups of 2 to 8 copies take the fixed-size kernels, 9 to 12 the general ones: the own
  // ids' sizes 2..12 (size 1 needs no work), and the shared ids' sizes 1..12 when other
  // ranks hold them (2..12 at P = 1, where they are local too).
  const std::size_t shared_fixed = world_size() > 1 ? 8 : 7;
  EXPECT_EQ(h.stats().fixed_kernel_groups, 7 + shared_fixed) << name;
  EXPECT_EQ(h.stats().general_kernel_groups, 4u + 4u) << name;

  // k = 16385: a group of two entries holds more than 256 KiB, so the local pass stops to
  // make progress after every group of the fixed-size kernel and every row of the general
  // one (reduce_alone in src/core/handle.cpp), which must not change a value.
  for (const std::size_t k : {std::size_t(1), std::size_t(3), std::size_t(16385)}) {
    for (const bool blocking : {true, false}) {
      const std::string label = name + (blocking ? " blocking" : " start/wait") + " k=" + std::to_string(k);
      // Interleaved components (gs for k = 1, gs_vec for k = 3).
      std::vector<std::int64_t> u(n * k);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < k; ++c) u[i * k + c] = value(rank, i, k, c);
      if (blocking)
        h.apply_vec(std::span<std::int64_t>(u), k, Op::add);
      else
        h.start_vec(std::span<std::int64_t>(u), k, Op::add).wait();
      methods_test::expect_bitwise(expected(k), u, label + " interleaved");

      // Separate arrays (gs_many), component c of entry i in arrays[c][i].
      std::vector<std::vector<std::int64_t>> arrays(k, std::vector<std::int64_t>(n));
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < k; ++c) arrays[c][i] = value(rank, i, k, c);
      std::vector<std::int64_t*> pointers;
      for (auto& a : arrays) pointers.push_back(a.data());
      if (blocking)
        h.apply_many(std::span<std::int64_t* const>(pointers), Op::add);
      else
        h.start_many(std::span<std::int64_t* const>(pointers), Op::add).wait();
      std::vector<std::int64_t> joined(n * k);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < k; ++c) joined[i * k + c] = arrays[c][i];
      methods_test::expect_bitwise(expected(k), joined, label + " separate arrays");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, GroupSizes, ::testing::ValuesIn(gsr::registered_methods()),
                         methods_test::method_name);

}  // namespace
