// Every method gives the same bits as the serial reference (and so as every other method),
// for every floating op, on NaNs (signs, payloads, signaling ones), infinities, signed zeros,
// overflow and denormals, and on random finite values spread over 16 decades, where another
// grouping of a sum or product would show in the last bits. IEEE 754 lets a + b pass on
// either NaN and compilers swap the operands of a commutative add, so without a rule of its
// own the fold gave -NaN by one method and +NaN by another (issue 42, item 5);
// tests/support/reference.hpp spells out the rule (nan_first).
//
// The groups: every nonempty set of ranks (the bits of a mask) holds two groups, each
// holder with one to three local copies, interleaved, so that local folds go through the
// fixed-size kernels and every count of holders meets. Every rank builds the same global
// problem, so the reference needs no communication.
#include "methods_support.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace {

using gsr::Op;
using gsr_test::PerRank;
using methods_test::world_rank;
using methods_test::world_size;

constexpr std::uint64_t seed = 0x4e614e2d6f726465ULL;  // fixed: failures must reproduce

PerRank<std::int64_t> make_ids(int ranks) {
  const int masks = (1 << ranks) - 1;
  const int groups = std::min(2 * masks, 256);
  PerRank<std::int64_t> ids(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    for (int copy = 0; copy < 3; ++copy)
      for (int g = 0; g < groups; ++g) {
        const int mask = g % masks + 1;
        if ((mask >> r & 1) && copy <= (g + r) % 3) ids[static_cast<std::size_t>(r)].push_back(g + 1);
      }
  return ids;
}

/// The special values of T: NaNs of both signs, with payloads, quiet and signaling;
/// infinities, zeros of both signs, the largest finite values (their sum overflows), the
/// smallest denormals, and a few ordinary numbers.
template <class T>
std::vector<T> special_pool() {
  using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  constexpr int digits = std::numeric_limits<T>::digits;  // 53 or 24, with the hidden bit
  constexpr U sign = U(1) << (8 * sizeof(T) - 1);
  constexpr U exponent = static_cast<U>(~sign & ~((U(1) << (digits - 1)) - 1));
  constexpr U quiet = U(1) << (digits - 2);
  const U nans[] = {
      exponent | quiet, sign | exponent | quiet,       exponent | quiet | 0x123, sign | exponent | quiet | 0xabc,
      exponent | 1,     sign | exponent | (quiet >> 1)};
  std::vector<T> pool;
  for (U bits : nans) pool.push_back(std::bit_cast<T>(bits));
  using L = std::numeric_limits<T>;
  for (T v : {L::infinity(), -L::infinity(), T(0), -T(0), L::max(), -L::max(), L::denorm_min(), -L::denorm_min(), T(1),
              T(-1), T(2.5), T(0.1)})
    pool.push_back(v);
  return pool;
}

/// The first copy of each id on a rank takes any value of special_pool; the others take
/// finite ones that make no NaN, overflow or infinity with it (the pool's values from zero
/// on, less the largest). So a rank's local fold never meets two NaNs, whose order the
/// compiler may swap there too (the local folds are the same code for every method, so
/// they cannot make methods differ, and docs/methods.md promises nothing for them), while
/// folding the partials meets every pair of them.
template <class T>
PerRank<T> special_values(const PerRank<std::int64_t>& ids, std::size_t k, std::uint64_t s) {
  const std::vector<T> pool = special_pool<T>();
  std::vector<T> tame;
  for (std::size_t i = 8; i < pool.size(); ++i)
    if (std::abs(pool[i]) != std::numeric_limits<T>::max()) tame.push_back(pool[i]);
  gsr_test::Random rng(s);
  PerRank<T> values(ids.size());
  for (std::size_t r = 0; r < ids.size(); ++r) {
    std::vector<std::int64_t> seen;
    for (std::int64_t id : ids[r]) {
      const bool first = std::find(seen.begin(), seen.end(), id) == seen.end();
      if (first) seen.push_back(id);
      for (std::size_t c = 0; c < k; ++c)
        values[r].push_back(first ? pool[rng.below(pool.size())] : tame[rng.below(tame.size())]);
    }
  }
  return values;
}

enum class Values { special, finite };

template <class T>
void check(gsr::Handle& h, const PerRank<std::int64_t>& ids, Values kind, Op op, std::size_t k, gsr::Method m) {
  const std::uint64_t s = seed + 1000 * static_cast<std::uint64_t>(op) + 10 * k + (kind == Values::finite);
  const PerRank<T> input =
      kind == Values::special ? special_values<T>(ids, k, s) : gsr_test::random_values<T>(ids, k, op, s);
  PerRank<T> want = input;
  gsr_test::apply(ids, want, k, op, gsr::Transpose::no);
  const auto rank = static_cast<std::size_t>(world_rank());
  std::vector<T> got = input[rank];
  if (k == 1)
    h.apply(std::span<T>(got), op);
  else
    h.apply_vec(std::span<T>(got), k, op);
  const std::string label = std::string("P=") + std::to_string(world_size()) + " rank=" + std::to_string(rank) +
                            " method=" + std::string(gsr::to_string(m)) +
                            " dom=" + std::string(gsr::to_string(gsr::domain_of<T>())) +
                            " op=" + std::string(gsr::to_string(op)) + " k=" + std::to_string(k) +
                            (kind == Values::special ? " special" : " finite");
  std::size_t mismatches = 0;
  for (std::size_t j = 0; j < got.size(); ++j) {
    if (gsr_test::same_bits(want[rank][j], got[j])) continue;
    if (mismatches++ < 3)
      ADD_FAILURE() << label << ": value " << j << " (id " << ids[rank][j / k] << ") expected bits " << std::hex
                    << std::bit_cast<std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>>(want[rank][j])
                    << ", got "
                    << std::bit_cast<std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>>(got[j]);
  }
  if (mismatches > 3) ADD_FAILURE() << label << ": " << mismatches << " mismatches in all";
}

class SpecialValues : public ::testing::TestWithParam<gsr::Method> {};

TEST_P(SpecialValues, EveryOpBitwiseAsTheReference) {
  const PerRank<std::int64_t> ids = make_ids(world_size());
  gsr::Handle h(ids[static_cast<std::size_t>(world_rank())], MPI_COMM_WORLD, methods_test::with_method(GetParam()));
  for (Values kind : {Values::special, Values::finite})
    for (Op op : {Op::add, Op::mul, Op::min, Op::max})
      for (std::size_t k : {std::size_t{1}, std::size_t{3}}) {
        if (kind == Values::finite && k > 1) continue;  // a grouping shows alike at any k
        check<double>(h, ids, kind, op, k, GetParam());
        check<float>(h, ids, kind, op, k, GetParam());
      }
}

INSTANTIATE_TEST_SUITE_P(Methods, SpecialValues, ::testing::ValuesIn(gsr::registered_methods()),
                         methods_test::method_name);

}  // namespace
