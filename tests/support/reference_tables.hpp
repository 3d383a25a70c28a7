// reference_tables.hpp — the two-element example of the seed documentation (Offermans,
// "Gather-scatter library in Nek5000", section 3), typed in by hand from Tables 1-4. These are
// the expected values of the seed tests; nothing here is computed.
#pragma once

#include <gsr/types.hpp>

#include <array>
#include <cstdint>

namespace gsr_test::seed {

using Row = std::array<double, 9>;
using IdRow = std::array<std::int64_t, 9>;

// Table 1: element 1 (rank 0) and element 2 (rank 1).
inline constexpr IdRow id[2] = {{1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 10, 11, 6, 12, 13, 9, 14, 15}};
inline constexpr IdRow id_asym[2] = {{1, 2, -3, 4, 5, 6, 7, 8, -9},
                                     {3, 10, 11, -6, 12, 13, 9, 14, 15}};
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

}  // namespace gsr_test::seed
