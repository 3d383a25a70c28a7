// methods_support.hpp — what the method tests share: rank queries, a random global problem
// every rank builds identically (so the serial reference of tests/support needs no
// communication), and bitwise comparison with readable failures.
#pragma once

#include <gsr/handle.hpp>

#include "world.hpp"
#include "reference.hpp"
#include "reference_random.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace methods_test {

using gsr_test::PerRank;

using gsr_test::world_size;
using gsr_test::world_rank;

/// Random ids for every rank: about 10% zeros, 25% flagged, magnitudes from a small pool
/// (so groups span several ranks, often with repeats on one rank) plus ids above 2^32.
inline PerRank<std::int64_t> random_ids(std::uint64_t seed, int ranks, std::size_t min_n = 6) {
  std::mt19937_64 rng(seed);
  const std::int64_t pool[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, (std::int64_t(1) << 33) + 1,
                               (std::int64_t(1) << 40) + 7, INT64_MAX};
  PerRank<std::int64_t> ids(static_cast<std::size_t>(ranks));
  for (auto& mine : ids) {
    const std::size_t n = min_n + rng() % 20;
    for (std::size_t i = 0; i < n; ++i) {
      std::int64_t id = rng() % 10 == 0 ? 0 : pool[rng() % std::size(pool)];
      if (rng() % 4 == 0) id = -id;
      mine.push_back(id);
    }
  }
  return ids;
}

/// Values whose combination order shows in the last bits (floating add spans 16 decades),
/// near 1 for mul, small factors for integer mul, prefixes of a common base for bpr.
template <class T>
PerRank<T> random_values(const PerRank<std::int64_t>& ids, std::size_t k, gsr::Op op, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  PerRank<T> values(ids.size());
  for (std::size_t r = 0; r < ids.size(); ++r) {
    for (std::size_t i = 0; i < ids[r].size() * k; ++i) {
      T v{};
      if constexpr (std::is_floating_point_v<T>) {
        const double unit = std::uniform_real_distribution<double>(0.5, 1.5)(rng);
        const double sign = rng() % 2 ? -1.0 : 1.0;
        v = static_cast<T>(op == gsr::Op::mul ? sign * unit : sign * unit * std::pow(10.0, int(rng() % 17) - 8));
      } else if (op == gsr::Op::mul) {
        v = static_cast<T>(int(rng() % 5) - 2);
      } else if (op == gsr::Op::bpr) {
        v = static_cast<T>(0x0f0f0f0f0f0f0f0fULL ^ (rng() & 0xfffULL));
      } else {
        v = static_cast<T>(rng());
      }
      values[r].push_back(v);
    }
  }
  return values;
}

using gsr_test::show;

/// Bitwise comparison of this rank's values; reports the first few differences.
template <class T>
void expect_bitwise(const std::vector<T>& want, const std::vector<T>& got, const std::string& label) {
  ASSERT_EQ(want.size(), got.size()) << label;
  int shown = 0;
  for (std::size_t j = 0; j < want.size(); ++j)
    if (!gsr_test::same_bits(want[j], got[j]) && shown++ < 3)
      ADD_FAILURE() << label << ": value " << j << " expected " << show(want[j]) << ", got " << show(got[j]);
}

inline std::string method_name(const ::testing::TestParamInfo<gsr::Method>& info) {
  return std::string(gsr::to_string(info.param));
}

inline gsr::SetupOptions with_method(gsr::Method m) {
  gsr::SetupOptions o;
  o.method = m;
  return o;
}

}  // namespace methods_test
