// The fixed-size kernel with and without its prefetch hints (GSR_PREFETCH_FROM_BYTES, read
// at setup: 0 asks for them on every call, a large value never). The hints look ahead across
// the runs of Plan::fixed_entries and stop short of its end; a slip there reads past the
// array (the sanitized build fails) or, in the loop itself, changes sums. Each rank holds a
// box of elements (faces, edges and corners: groups of 2, 4 and 8 local copies, thousands of
// entries, so the look-ahead spans many runs), the boxes of neighbouring ranks share a face.
// Values are 64-bit integers: the expected sums are exact and derived by hand from the ids.
#include "methods_support.hpp"

#include <cstdlib>
#include <map>

namespace {

using gsr::Op;
using methods_test::world_rank;
using methods_test::world_size;

constexpr int elements = 6;  // per axis and rank
constexpr int order = 3;     // (order + 1)^3 entries per element

/// Rank r's box: elements x elements x elements of them, at x offset r * elements, with the
/// nodes on shared faces, edges and corners numbered alike on every element that has them.
std::vector<std::int64_t> box_ids(int rank) {
  const std::int64_t lx = static_cast<std::int64_t>(elements) * order * world_size() + 1;
  const std::int64_t ly = static_cast<std::int64_t>(elements) * order + 1;
  std::vector<std::int64_t> ids;
  for (int ez = 0; ez < elements; ++ez)
    for (int ey = 0; ey < elements; ++ey)
      for (int ex = 0; ex < elements; ++ex)
        for (int k = 0; k <= order; ++k)
          for (int j = 0; j <= order; ++j)
            for (int i = 0; i <= order; ++i) {
              const std::int64_t gx = static_cast<std::int64_t>(rank * elements + ex) * order + i;
              const std::int64_t gy = static_cast<std::int64_t>(ey) * order + j;
              const std::int64_t gz = static_cast<std::int64_t>(ez) * order + k;
              ids.push_back(1 + gx + lx * (gy + ly * gz));
            }
  return ids;
}

std::int64_t value(int rank, std::size_t i, std::size_t k, std::size_t c) {
  return (static_cast<std::int64_t>(rank) + 1) * 10000000 + static_cast<std::int64_t>(i * k + c);
}

/// Component c of every copy after an add: the sum over every rank's copies of the id.
std::vector<std::int64_t> expected(std::size_t k) {
  std::map<std::int64_t, std::vector<std::int64_t>> sums;
  for (int r = 0; r < world_size(); ++r) {
    const std::vector<std::int64_t> ids = box_ids(r);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      std::vector<std::int64_t>& s = sums[ids[i]];
      s.resize(k, 0);
      for (std::size_t c = 0; c < k; ++c) s[c] += value(r, i, k, c);
    }
  }
  const std::vector<std::int64_t> mine = box_ids(world_rank());
  std::vector<std::int64_t> out(mine.size() * k);
  for (std::size_t i = 0; i < mine.size(); ++i)
    for (std::size_t c = 0; c < k; ++c) out[i * k + c] = sums[mine[i]][c];
  return out;
}

/// A handle whose calls ask for their lines ahead from `bytes` bytes of data on.
gsr::Handle handle_with_threshold(std::size_t bytes, gsr::Method method) {
  gsr::SetupOptions options = methods_test::with_method(method);
  options.prefetch_from_bytes = bytes;
  return gsr::Handle(box_ids(world_rank()), MPI_COMM_WORLD, options);
}

class Prefetch : public ::testing::TestWithParam<gsr::Method> {};

TEST_P(Prefetch, HintsOrNotTheSumsByHand) {
  const int rank = world_rank();
  const std::size_t n = box_ids(rank).size();
  for (const std::size_t threshold : {std::size_t{0}, std::size_t{1000000000000}}) {
    gsr::Handle h = handle_with_threshold(threshold, GetParam());
    const std::string label =
        std::string(gsr::to_string(GetParam())) + " prefetch_from_bytes=" + std::to_string(threshold);
    for (const std::size_t k : {std::size_t(1), std::size_t(3)}) {
      std::vector<std::int64_t> u(n * k);
      for (std::size_t i = 0; i < n * k; ++i) u[i] = value(rank, i / k, k, i % k);
      h.apply_vec(std::span<std::int64_t>(u), k, Op::add);
      methods_test::expect_bitwise(expected(k), u, label + " k=" + std::to_string(k) + " interleaved");

      std::vector<std::vector<std::int64_t>> arrays(k, std::vector<std::int64_t>(n));
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < k; ++c) arrays[c][i] = value(rank, i, k, c);
      std::vector<std::int64_t*> pointers;
      for (auto& a : arrays) pointers.push_back(a.data());
      h.start_many(std::span<std::int64_t* const>(pointers), Op::add).wait();
      std::vector<std::int64_t> joined(n * k);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < k; ++c) joined[i * k + c] = arrays[c][i];
      methods_test::expect_bitwise(expected(k), joined, label + " k=" + std::to_string(k) + " separate arrays");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, Prefetch, ::testing::ValuesIn(gsr::registered_methods()), methods_test::method_name);

}  // namespace
