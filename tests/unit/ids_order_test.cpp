// The one sort setup walks (setup/ids.hpp, entries_by_id): entries with a non-zero id,
// ordered by |id| and, within one |id|, by index, whichever path sorts them (a radix sort
// when |id| and index fit one 64-bit word, a comparison sort when they do not). Checked
// against std::stable_sort of the indices by |id|.
#include "setup/ids.hpp"

#include "random.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

using gsr::detail::abs_id;
using gsr::detail::index_t;

std::vector<index_t> expected_order(const std::vector<std::int64_t>& ids) {
  std::vector<index_t> order;
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != 0) order.push_back(static_cast<index_t>(i));
  std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) { return abs_id(ids[a]) < abs_id(ids[b]); });
  return order;
}

/// n ids drawn from `distinct` values spread over [1, 2^bits), the largest of them among
/// the values, with random signs and about one in ten zero.
std::vector<std::int64_t> random_ids(std::size_t n, std::size_t distinct, unsigned bits, std::uint64_t seed) {
  gsr_test::Random rng(seed);
  std::vector<std::int64_t> pool(distinct);
  for (auto& id : pool) id = static_cast<std::int64_t>(1 + rng.below((std::uint64_t{1} << bits) - 1));
  pool[0] = static_cast<std::int64_t>((std::uint64_t{1} << bits) - 1);
  std::vector<std::int64_t> ids(n);
  for (auto& id : ids) {
    if (rng.percent(10)) continue;
    id = pool[rng.below(distinct)];
    if (rng.percent(30)) id = -id;
  }
  return ids;
}

TEST(IdsOrder, MatchesAStableSortByAbsoluteId) {
  struct Case {
    std::size_t n, distinct;
    unsigned bits;
  };
  // Few and many distinct ids, ids that differ only in their low byte; ids of 43 bits
  // with 2^20 entries (21 index bits: the word is full) take the radix sort, of 44 bits
  // the comparison sort, as do 62 and 63 bits with 20,000 entries.
  for (const Case c : {Case{0, 1, 8}, Case{1, 1, 8}, Case{1000, 7, 8}, Case{5000, 4000, 16}, Case{100000, 30000, 24},
                       Case{100000, 50000, 44}, Case{1 << 20, 300000, 43}, Case{1 << 20, 300000, 44},
                       Case{20000, 10000, 62}, Case{20000, 10000, 63}}) {
    const auto ids = random_ids(c.n, c.distinct, c.bits, 1000 * c.n + c.bits);
    EXPECT_EQ(gsr::detail::entries_by_id(ids), expected_order(ids))
        << "n = " << c.n << ", " << c.distinct << " distinct ids below 2^" << c.bits;
  }
}

TEST(IdsOrder, LargestIdInAWord) {
  // A lone id of 2^63 - 1 and its one index bit fill the word exactly (the radix sort);
  // with more entries the comparison sort takes it.
  constexpr std::int64_t top = std::numeric_limits<std::int64_t>::max();
  for (const std::vector<std::int64_t> ids : {std::vector<std::int64_t>{top}, {-top, top}, {top, 5, 0, -top, 5}}) {
    EXPECT_EQ(gsr::detail::entries_by_id(ids), expected_order(ids)) << ids.size() << " ids";
  }
}

TEST(IdsOrder, HighBytesAloneDiffer) {
  // Ids that agree in every byte but one high one, and the same id many times.
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 3000; ++i) ids.push_back((std::int64_t{(i * 7919) % 251} << 36) | 0x55);
  for (int i = 0; i < 500; ++i) ids.push_back(i % 2 ? 0x55 : -0x55);
  EXPECT_EQ(gsr::detail::entries_by_id(ids), expected_order(ids));
}

}  // namespace
