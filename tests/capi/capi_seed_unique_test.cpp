// Through the C interface at P = 2 (one element per rank): gs_unique turns Table 1's id into
// its id_asym (docs/concepts.md), and gs_setup(unique = 1) on the plain ids gives Tables 3 and 4 while leaving
// the caller's array unchanged.
#include <gsr/gs.h>

#include "capi.hpp"
#include "reference_tables.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <vector>

namespace {

namespace seed = gsr_test::seed;

const gs_op table_ops[4] = {gs_add, gs_mul, gs_min, gs_max};

class CapiSeedUnique : public gsr_test::CapiTest<> {
protected:
  void SetUp() override {
    CapiTest::SetUp();
    ASSERT_EQ(comm.np, 2u) << "Table 1's id_asym assumes one element per rank on two ranks";
  }
};

TEST_F(CapiSeedUnique, GsUniqueGivesTable1IdAsym) {
  const int r = static_cast<int>(comm.id);
  std::vector<slong> ids(seed::id[r].begin(), seed::id[r].end());
  gs_unique(ids.data(), static_cast<uint>(ids.size()), &comm);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  for (std::size_t i = 0; i < ids.size(); ++i)
    EXPECT_EQ(ids[i], seed::id_asym[r][i]) << "entry " << i << " of element " << r + 1;
}

TEST_F(CapiSeedUnique, UniqueSetupGivesTables3And4) {
  const int r = static_cast<int>(comm.id);
  const std::vector<slong> ids(seed::id[r].begin(), seed::id[r].end());
  for (const gsr_test::MethodCase& method_case : gsr_test::concrete_method_cases()) {
    const gs_method method = method_case.code;
    std::vector<slong> copy = ids;
    struct gs_data* h = gs_setup(copy.data(), static_cast<uint>(copy.size()), &comm, 1, method, 0);
    ASSERT_NE(h, nullptr) << "method " << method << ": " << gsr_last_error_message();
    EXPECT_EQ(copy, ids) << "gs_setup must leave the caller's ids unchanged";
    for (int op = 0; op < 4; ++op) {
      for (unsigned t = 0; t < 2; ++t) {
        std::vector<double> v(seed::u[r].begin(), seed::u[r].end());
        gs(v.data(), gs_double, table_ops[op], t, h, nullptr);
        const seed::Row& want = t ? seed::table4[op][r] : seed::table3[op][r];
        for (std::size_t i = 0; i < v.size(); ++i)
          EXPECT_NEAR(v[i], want[i], 1e-12 * std::fmax(1.0, std::fabs(want[i])))
              << "method " << method << " table " << (t ? 4 : 3) << " op " << op << " entry " << i;
      }
    }
    gs_free(h);
  }
}

}  // namespace
