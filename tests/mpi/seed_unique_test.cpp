// Table 1's id_asym is what make_unique gives on Table 1's id at P = 2 (docs/concepts.md,
// "unique"), and a handle set up with unique = true on the plain ids gives Tables 3 and 4.
// Registered at P = 2 only: the table's owner choice depends on having one element per rank.
#include <gsr/handle.hpp>

#include "method_param.hpp"
#include "world.hpp"
#include "reference_tables.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

namespace seed = gsr_test::seed;

using gsr_test::world_rank;

void require_two_ranks() {
  ASSERT_EQ(gsr_test::world_size(), 2) << "Table 1's id_asym assumes one element per rank on two ranks";
}

class SeedUniqueIds : public ::testing::Test {
protected:
  void SetUp() override { require_two_ranks(); }
};

class SeedUnique : public ::testing::TestWithParam<gsr::Method> {
protected:
  void SetUp() override { require_two_ranks(); }
};

/// make_unique on this rank's row of `input` gives this rank's row of Table 1's id_asym.
void expect_make_unique_gives_id_asym(const seed::IdRow (&input)[2]) {
  const int r = world_rank();
  std::vector<std::int64_t> ids(input[r].begin(), input[r].end());
  gsr::make_unique(ids, MPI_COMM_WORLD);
  for (std::size_t i = 0; i < ids.size(); ++i)
    EXPECT_EQ(ids[i], seed::id_asym[r][i]) << "entry " << i << " of element " << r + 1;
}

TEST_F(SeedUniqueIds, MakeUniqueGivesTable1IdAsym) { expect_make_unique_gives_id_asym(seed::id); }

// make_unique is idempotent on an already unique map.
TEST_F(SeedUniqueIds, MakeUniqueKeepsTable1IdAsym) { expect_make_unique_gives_id_asym(seed::id_asym); }

TEST_P(SeedUnique, UniqueSetupGivesTables3And4) {
  const int r = world_rank();
  const std::vector<std::int64_t> ids(seed::id[r].begin(), seed::id[r].end());
  gsr::SetupOptions options = gsr_test::with_method(GetParam());
  options.unique = true;
  gsr::Handle h(ids, MPI_COMM_WORLD, options);
  for (int op = 0; op < 4; ++op) {
    for (int t = 0; t < 2; ++t) {
      std::vector<double> v(seed::u[r].begin(), seed::u[r].end());
      h.apply(std::span<double>(v), seed::ops[op], t ? gsr::Transpose::yes : gsr::Transpose::no);
      const seed::Row& want = t ? seed::table4[op][r] : seed::table3[op][r];
      for (std::size_t i = 0; i < v.size(); ++i)
        EXPECT_NEAR(v[i], want[i], 1e-12 * std::fmax(1.0, std::fabs(want[i])))
            << "table " << (t ? 4 : 3) << " op " << gsr::to_string(seed::ops[op]) << " element " << r + 1 << " entry "
            << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, SeedUnique, ::testing::ValuesIn(gsr::registered_methods()), gsr_test::method_name);

}  // namespace
