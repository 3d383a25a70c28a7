// reference_tables.hpp — the two-element example of docs/concepts.md (two order-2 elements
// sharing nodes 3, 6 and 9), typed in by hand from its Tables 1-4: the expected values of
// the tests built on this example, which carry "seed" in their names (namespace seed,
// seed_tables_test.cpp, ...). Nothing here is computed, except at the end: the helpers that
// pick this rank's share of a table.
#pragma once

#include <gsr/types.hpp>

#include "world.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace gsr_test::seed {

using Row = std::array<double, 9>;
using IdRow = std::array<std::int64_t, 9>;

// Table 1: element 1 (rank 0) and element 2 (rank 1).
inline constexpr IdRow id[2] = {{1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 10, 11, 6, 12, 13, 9, 14, 15}};
inline constexpr IdRow id_asym[2] = {{1, 2, -3, 4, 5, 6, 7, 8, -9}, {3, 10, 11, -6, 12, 13, 9, 14, 15}};
inline constexpr Row u[2] = {{1.0, 1.5, 2.0, 2.0, 0.8, 0.4, 0.5, 0.1, 2.5},
                             {1.0, 0.3, 0.9, 1.2, 1.2, 2.1, 0.8, 0.3, 0.7}};

// The four ops of the tables, in the tables' row order.
inline constexpr gsr::Op ops[4] = {gsr::Op::add, gsr::Op::mul, gsr::Op::min, gsr::Op::max};

// Table 2: symmetric (id), by op then element.
inline constexpr Row table2[4][2] = {
    {{1.0, 1.5, 3.0, 2.0, 0.8, 1.6, 0.5, 0.1, 3.3}, {3.0, 0.3, 0.9, 1.6, 1.2, 2.1, 3.3, 0.3, 0.7}},
    {{1.0, 1.5, 2.0, 2.0, 0.8, 0.48, 0.5, 0.1, 2.0}, {2.0, 0.3, 0.9, 0.48, 1.2, 2.1, 2.0, 0.3, 0.7}},
    {{1.0, 1.5, 1.0, 2.0, 0.8, 0.4, 0.5, 0.1, 0.8}, {1.0, 0.3, 0.9, 0.4, 1.2, 2.1, 0.8, 0.3, 0.7}},
    {{1.0, 1.5, 2.0, 2.0, 0.8, 1.2, 0.5, 0.1, 2.5}, {2.0, 0.3, 0.9, 1.2, 1.2, 2.1, 2.5, 0.3, 0.7}},
};

// Table 3: id_asym, transpose = 0 (the same for every op).
inline constexpr Row table3[4][2] = {
    {{1.0, 1.5, 1.0, 2.0, 0.8, 0.4, 0.5, 0.1, 0.8}, {1.0, 0.3, 0.9, 0.4, 1.2, 2.1, 0.8, 0.3, 0.7}},
    {{1.0, 1.5, 1.0, 2.0, 0.8, 0.4, 0.5, 0.1, 0.8}, {1.0, 0.3, 0.9, 0.4, 1.2, 2.1, 0.8, 0.3, 0.7}},
    {{1.0, 1.5, 1.0, 2.0, 0.8, 0.4, 0.5, 0.1, 0.8}, {1.0, 0.3, 0.9, 0.4, 1.2, 2.1, 0.8, 0.3, 0.7}},
    {{1.0, 1.5, 1.0, 2.0, 0.8, 0.4, 0.5, 0.1, 0.8}, {1.0, 0.3, 0.9, 0.4, 1.2, 2.1, 0.8, 0.3, 0.7}},
};

// Table 4: id_asym, transpose = 1.
inline constexpr Row table4[4][2] = {
    {{1.0, 1.5, 2.0, 2.0, 0.8, 1.6, 0.5, 0.1, 2.5}, {3.0, 0.3, 0.9, 1.2, 1.2, 2.1, 3.3, 0.3, 0.7}},
    {{1.0, 1.5, 2.0, 2.0, 0.8, 0.48, 0.5, 0.1, 2.5}, {2.0, 0.3, 0.9, 1.2, 1.2, 2.1, 2.0, 0.3, 0.7}},
    {{1.0, 1.5, 2.0, 2.0, 0.8, 0.4, 0.5, 0.1, 2.5}, {1.0, 0.3, 0.9, 1.2, 1.2, 2.1, 0.8, 0.3, 0.7}},
    {{1.0, 1.5, 2.0, 2.0, 0.8, 1.2, 0.5, 0.1, 2.5}, {2.0, 0.3, 0.9, 1.2, 1.2, 2.1, 2.5, 0.3, 0.7}},
};

// ---- this rank's share ------------------------------------------------------------------

/// The elements this rank holds: {rank} at P = 2 (one element per rank), {0, 1} at P = 1.
inline std::vector<int> my_elements() {
  if (world_size() == 1) return {0, 1};
  return {world_rank()};
}

/// The rows of `rows` (one per element) for this rank's elements, one after the other.
template <class Rows>
auto local_concat(const Rows& rows) {
  std::vector<typename std::decay_t<decltype(rows[0])>::value_type> out;
  for (int e : my_elements()) out.insert(out.end(), rows[e].begin(), rows[e].end());
  return out;
}

/// Relative comparison against a typed-in value (0.48 is not exact in binary).
inline void expect_close(double expected, double got, double rel, const std::string& what) {
  EXPECT_LE(std::fabs(got - expected), rel * std::fmax(1.0, std::fabs(expected)))
      << what << ": expected " << expected << ", got " << got;
}

}  // namespace gsr_test::seed
