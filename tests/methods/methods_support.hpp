// methods_support.hpp — what the method tests share: rank queries, the random global
// problems of tests/support (every rank builds the same one, so the serial reference needs
// no communication), and bitwise comparison with readable failures.
#pragma once

#include <gsr/handle.hpp>

#include "method_param.hpp"
#include "world.hpp"
#include "reference.hpp"
#include "reference_random.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace methods_test {

using gsr_test::PerRank;

using gsr_test::world_rank;
using gsr_test::world_size;

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

using gsr_test::method_name;
using gsr_test::with_method;

}  // namespace methods_test
