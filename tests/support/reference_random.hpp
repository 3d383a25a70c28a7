// reference_random.hpp — random global problems for the tests that compare gsr with the
// serial reference: ids with zeros, flags, duplicates within a rank, ids above 2^32 (some
// equal to small ids modulo 2^32) and empty ranks; values suited to each op. Every rank
// generates the same global problem from the same seed (with the suite's one generator,
// random.hpp), so the reference needs no communication.
#pragma once

#include "random.hpp"
#include "reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace gsr_test {

using gsr::Op;

// ---- the global problem -------------------------------------------------------------------

// Magnitudes ids are drawn from: small ones, and large ones, some congruent to small ones
// modulo 2^32 (a hash on the low word would merge them).
inline const std::vector<std::int64_t> id_pool = {
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
    13,
    (std::int64_t(1) << 32) + 3,
    (std::int64_t(1) << 32) + 5,
    (std::int64_t(1) << 33) + 3,
    (std::int64_t(1) << 40) + 17,
    (std::int64_t(3) << 45) + 1,
    (std::int64_t(1) << 62) + 9,
    INT64_MAX,
};

struct IdSet {
  std::string name;
  PerRank<std::int64_t> ids;
};

/// Random ids for `ranks` ranks; the rank `empty_rank` (if in range) gets no entries.
/// Every other rank gets 8 to 40 entries: about 10% zeros, the rest drawn from id_pool (so
/// groups span several ranks, often with repeats on one rank), 30% of them flagged.
inline IdSet make_ids(const std::string& name, std::uint64_t seed, int ranks, int empty_rank) {
  Random rng(seed);
  IdSet set{name, PerRank<std::int64_t>(static_cast<std::size_t>(ranks))};
  for (int r = 0; r < ranks; ++r) {
    if (r == empty_rank) continue;
    const std::size_t n = 8 + rng.below(33);
    for (std::size_t i = 0; i < n; ++i) {
      std::int64_t id = 0;
      if (!rng.percent(10)) {
        id = id_pool[rng.below(id_pool.size())];
        if (rng.percent(30)) id = -id;
      }
      set.ids[r].push_back(id);
    }
  }
  return set;
}

/// One random value suited to `op`: floating values near 1 for mul and spanning 16 decades
/// otherwise (so that another combination order would show in the last bits); small
/// factors, zero among them, for integer mul; values sharing long prefixes with a few
/// bases for bpr; for the other integer ops small values or any bit pattern (so sums wrap).
template <class T>
T random_value(Random& rng, Op op) {
  if constexpr (std::is_floating_point_v<T>) {
    const double sign = rng.below(2) ? -1.0 : 1.0;
    if (op == Op::mul) return static_cast<T>(sign * rng.uniform(0.5, 2.0));
    const int exponent = int(rng.below(17)) - 8;
    return static_cast<T>(sign * rng.unit() * std::pow(10.0, exponent));
  } else {
    using U = std::make_unsigned_t<T>;
    if (op == Op::mul) {
      static constexpr T factors[] = {-2, -1, 0, 1, 2, 3};
      return factors[rng.below(std::size(factors))];
    }
    if (op == Op::bpr) {
      static constexpr std::uint64_t bases[] = {0x0123456789abcdefULL, 0xfedcba9876543210ULL, 0x00000000000f0f0fULL};
      const U base = static_cast<U>(bases[rng.below(3)]);
      const unsigned bits = unsigned(rng.below(8 * sizeof(T)));
      const U low_mask = bits == 0 ? U(0) : static_cast<U>(~U(0) >> (8 * sizeof(T) - bits));
      return static_cast<T>(static_cast<U>(base ^ (static_cast<U>(rng.bits()) & low_mask)));
    }
    if (rng.below(4) == 0) return static_cast<T>(static_cast<std::int64_t>(rng.below(201)) - 100);
    return static_cast<T>(static_cast<U>(rng.bits()));
  }
}

/// k values per entry (vec layout) for every rank's ids.
template <class T>
PerRank<T> random_values(const PerRank<std::int64_t>& ids, std::size_t k, Op op, std::uint64_t seed) {
  Random rng(seed);
  PerRank<T> values(ids.size());
  for (std::size_t r = 0; r < ids.size(); ++r)
    for (std::size_t i = 0; i < ids[r].size() * k; ++i) values[r].push_back(random_value<T>(rng, op));
  return values;
}

// ---- comparison ---------------------------------------------------------------------------

template <class T>
std::string show(T v) {
  std::ostringstream out;
  out.precision(17);
  out << +v;
  return out.str();
}

/// Bitwise comparison of this rank's result; reports at most a few mismatches.
template <class T>
void expect_same(const std::vector<T>& want, const std::vector<T>& got, const std::vector<std::int64_t>& ids,
                 std::size_t k, const std::string& label) {
  ASSERT_EQ(want.size(), got.size()) << label;
  int reported = 0;
  std::size_t mismatches = 0;
  for (std::size_t j = 0; j < want.size(); ++j) {
    if (gsr_test::same_bits(want[j], got[j])) continue;
    ++mismatches;
    if (reported++ < 3)
      ADD_FAILURE() << label << ": entry " << j / k << " component " << j % k << " (id " << ids[j / k] << "): expected "
                    << show(want[j]) << ", got " << show(got[j]);
  }
  if (mismatches > 3) ADD_FAILURE() << label << ": " << mismatches << " mismatches in all";
}

}  // namespace gsr_test
