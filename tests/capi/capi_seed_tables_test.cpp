// Tables 2, 3 and 4 of the two-element example (docs/concepts.md) through the C interface
// (gs.h): gs, gs_vec, gs_many and igs/gs_wait, every op, every domain, every method code
// (gs_auto included), with and without a caller buffer. Runs at P = 2 (one element per rank)
// and P = 1 (both elements on one rank).
#include <gsr/gs.h>

#include "capi.hpp"
#include "reference_tables.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace seed = gsr_test::seed;
using gsr_test::dom_of;
using gsr_test::MethodCase;
using seed::expect_close;
using seed::local_concat;

const gs_op table_ops[4] = {gs_add, gs_mul, gs_min, gs_max};  // the tables' row order

/// gs_add (with `transpose`) on this rank's u gives its rows of `want_rows`.
void expect_gs_add_gives(struct gs_data* h, unsigned transpose, const seed::Row (&want_rows)[2],
                         const std::string& label) {
  std::vector<double> v = local_concat(seed::u);
  const std::vector<double> want = local_concat(want_rows);
  gs(v.data(), gs_double, gs_add, transpose, h, nullptr);
  for (std::size_t i = 0; i < v.size(); ++i) expect_close(want[i], v[i], 1e-12, label + " [" + std::to_string(i) + "]");
}

class CapiSeedTables : public gsr_test::CapiTest<::testing::TestWithParam<MethodCase>> {
protected:
  void SetUp() override {
    CapiTest::SetUp();
    ASSERT_TRUE(comm.np == 1 || comm.np == 2) << "the two-element tables hold two elements";
  }

  struct gs_data* setup(const std::vector<std::int64_t>& ids, int unique = 0) {
    struct gs_data* handle = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, unique, GetParam().code, 0);
    EXPECT_NE(handle, nullptr) << "gs_setup failed: " << gsr_last_error_message();
    if (handle != nullptr && GetParam().name != nullptr) {
      EXPECT_STREQ(gsr_method_name(handle), GetParam().name);
    }
    return handle;
  }

  // One op of one table through gs, gs_vec (k = 2), gs_many (k = 2) and igs + gs_wait.
  template <class T>
  void check(struct gs_data* h, const seed::Row (&table)[4][2], int op_index, unsigned transpose, double scale,
             double rel, const std::string& name) {
    const std::vector<double> u = local_concat(seed::u);
    const std::vector<double> want = local_concat(table[op_index]);
    const gs_op op = table_ops[op_index];
    const auto as_t = [&](double x) {
      return static_cast<T>(std::is_integral_v<T> ? double(std::llround(x * scale)) : x * scale);
    };
    const std::string label = name + " op " + std::to_string(op) + " dom " + std::to_string(dom_of<T>());
    const std::size_t n = u.size();

    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = as_t(u[i]);
    gs(v.data(), dom_of<T>(), op, transpose, h, nullptr);
    EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
    for (std::size_t i = 0; i < n; ++i)
      expect_close(want[i] * scale, double(v[i]), rel, label + " gs [" + std::to_string(i) + "]");

    std::vector<T> w(2 * n);
    for (std::size_t i = 0; i < n; ++i) w[2 * i] = w[2 * i + 1] = as_t(u[i]);
    buffer buf;
    buffer_init(&buf, 64);
    gs_vec(w.data(), 2, dom_of<T>(), op, transpose, h, &buf);
    buffer_free(&buf);
    for (std::size_t i = 0; i < n; ++i)
      for (int c = 0; c < 2; ++c)
        expect_close(want[i] * scale, double(w[2 * i + c]), rel,
                     label + " gs_vec [" + std::to_string(i) + "," + std::to_string(c) + "]");

    std::vector<T> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] = as_t(u[i]);
    void* arrays[2] = {a.data(), b.data()};
    gs_many(arrays, 2, dom_of<T>(), op, transpose, h, nullptr);
    for (std::size_t i = 0; i < n; ++i) {
      expect_close(want[i] * scale, double(a[i]), rel, label + " gs_many[0][" + std::to_string(i) + "]");
      expect_close(want[i] * scale, double(b[i]), rel, label + " gs_many[1][" + std::to_string(i) + "]");
    }

    std::vector<T> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = as_t(u[i]);
    int request = -1;
    igs(x.data(), dom_of<T>(), op, transpose, h, nullptr, &request);
    gs_wait(request);
    EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
    for (std::size_t i = 0; i < n; ++i)
      expect_close(want[i] * scale, double(x[i]), rel, label + " igs [" + std::to_string(i) + "]");
  }

  void check_table(const std::vector<std::int64_t>& ids, const seed::Row (&table)[4][2], unsigned transpose,
                   const std::string& name) {
    h = setup(ids);
    ASSERT_NE(h, nullptr);
    for (int op = 0; op < 4; ++op) {
      check<double>(h, table, op, transpose, 1.0, 1e-12, name);
      check<float>(h, table, op, transpose, 1.0, 1e-6, name);
      if (table_ops[op] != gs_mul || &table == &seed::table3) {
        check<std::int32_t>(h, table, op, transpose, 10.0, 0.0, name);
        check<std::int64_t>(h, table, op, transpose, 10.0, 0.0, name);
      }
    }
  }
};

TEST_P(CapiSeedTables, Table2) { check_table(local_concat(seed::id), seed::table2, 0, "table 2"); }

TEST_P(CapiSeedTables, Table3) { check_table(local_concat(seed::id_asym), seed::table3, 0, "table 3"); }

TEST_P(CapiSeedTables, Table4) { check_table(local_concat(seed::id_asym), seed::table4, 1, "table 4"); }

// Any nonzero transpose means transpose (docs/concepts.md, "Flags and transpose").
TEST_P(CapiSeedTables, Table4WithTransposeTwo) {
  h = setup(local_concat(seed::id_asym));
  ASSERT_NE(h, nullptr);
  expect_gs_add_gives(h, 2, seed::table4[0], "transpose=2");
}

// gs_setup leaves the caller's ids unchanged, also with unique = 1.
TEST_P(CapiSeedTables, SetupLeavesIdsUnchanged) {
  std::vector<std::int64_t> ids = local_concat(seed::id);
  const std::vector<std::int64_t> before = ids;
  h = setup(ids, 1);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(ids, before);
}

/// The concrete methods and gs_auto.
std::vector<MethodCase> every_method_code() {
  std::vector<MethodCase> cases = gsr_test::concrete_method_cases();
  cases.push_back({gs_auto, nullptr});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Methods, CapiSeedTables, ::testing::ValuesIn(every_method_code()), gsr_test::method_case_name);

TEST(CapiComm, CommInitReportsRankAndSize) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct comm c;
  comm_init(&c, MPI_COMM_WORLD);
  EXPECT_EQ(c.id, static_cast<uint>(rank));
  EXPECT_EQ(c.np, static_cast<uint>(size));
  int result = MPI_UNEQUAL;
  MPI_Comm_compare(c.c, MPI_COMM_WORLD, &result);
  EXPECT_EQ(result, MPI_CONGRUENT) << "comm_init keeps a duplicate, not the caller's communicator";
  comm_free(&c);
}

// verbose = 1 prints a summary on rank 0 and still gives a working handle.
using CapiVerbose = gsr_test::CapiTest<>;

TEST_F(CapiVerbose, VerboseSetupWorks) {
  ASSERT_TRUE(comm.np == 1 || comm.np == 2);
  const std::vector<std::int64_t> ids = local_concat(seed::id);
  h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, gs_pairwise, 1);
  ASSERT_NE(h, nullptr);
  expect_gs_add_gives(h, 0, seed::table2[0], "verbose handle");
}

}  // namespace
