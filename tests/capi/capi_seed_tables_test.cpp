// Seed Tables 2, 3 and 4 through the C interface (gs.h): gs, gs_vec, gs_many and igs/gs_wait,
// every op, every domain, every method code (gs_auto included), with and without a caller
// buffer. Runs at P = 2 (one element per rank) and P = 1 (both elements on one rank).
#include <gsr/gs.h>

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

const gs_op table_ops[4] = {gs_add, gs_mul, gs_min, gs_max};  // the tables' row order

struct Comm {
  struct comm c;
  Comm() { comm_init(&c, MPI_COMM_WORLD); }
  ~Comm() { comm_free(&c); }
};

std::vector<int> my_elements(const struct comm& c) {
  if (c.np == 1) return {0, 1};
  return {static_cast<int>(c.id)};
}

template <class Rows>
auto local_concat(const struct comm& c, const Rows& rows) {
  std::vector<typename std::decay_t<decltype(rows[0])>::value_type> out;
  for (int e : my_elements(c)) out.insert(out.end(), rows[e].begin(), rows[e].end());
  return out;
}

template <class T>
gs_dom dom_of() {
  if constexpr (std::is_same_v<T, double>) return gs_double;
  else if constexpr (std::is_same_v<T, float>) return gs_float;
  else if constexpr (std::is_same_v<T, std::int32_t>) return gs_sint;
  else return gs_slong;
}

void expect_close(double want, double got, double rel, const std::string& what) {
  EXPECT_LE(std::fabs(got - want), rel * std::fmax(1.0, std::fabs(want)))
      << what << ": expected " << want << ", got " << got;
}

struct MethodCase {
  gs_method code;
  const char* name;  // what gsr_method_name must report; nullptr for gs_auto
};
const MethodCase methods[] = {{gs_pairwise, "pairwise"},
                              {gs_crystal_router, "crystal_router"},
                              {gs_all_reduce, "allreduce"},
                              {gs_auto, nullptr}};

class CapiSeedTables : public ::testing::TestWithParam<MethodCase> {
protected:
  void SetUp() override {
    ASSERT_TRUE(comm.c.np == 1 || comm.c.np == 2) << "the seed tables hold two elements";
    gsr_set_error_mode(GSR_ERRORS_RETURN);
    gsr_clear_error();
  }
  void TearDown() override { gsr_set_error_mode(GSR_ERRORS_ABORT); }

  struct gs_data* setup(const std::vector<slong>& ids, int unique = 0) {
    struct gs_data* h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm.c, unique,
                                 GetParam().code, 0);
    EXPECT_NE(h, nullptr) << "gs_setup failed: " << gsr_last_error_message();
    if (h != nullptr && GetParam().name != nullptr) {
      EXPECT_STREQ(gsr_method_name(h), GetParam().name);
    }
    return h;
  }

  // One op of one table through gs, gs_vec (k = 2), gs_many (k = 2) and igs + gs_wait.
  template <class T>
  void check(struct gs_data* h, const seed::Row (&table)[4][2], int op_index, unsigned transpose,
             double scale, double rel, const std::string& name) {
    const std::vector<double> u = local_concat(comm.c, seed::u);
    const std::vector<double> want = local_concat(comm.c, table[op_index]);
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

  void check_table(const std::vector<slong>& ids, const seed::Row (&table)[4][2], unsigned transpose,
                   const std::string& name, int unique = 0) {
    struct gs_data* h = setup(ids, unique);
    ASSERT_NE(h, nullptr);
    for (int op = 0; op < 4; ++op) {
      check<double>(h, table, op, transpose, 1.0, 1e-12, name);
      check<float>(h, table, op, transpose, 1.0, 1e-6, name);
      if (table_ops[op] != gs_mul || &table == &seed::table3) {
        check<std::int32_t>(h, table, op, transpose, 10.0, 0.0, name);
        check<std::int64_t>(h, table, op, transpose, 10.0, 0.0, name);
      }
    }
    gs_free(h);
  }

  Comm comm;
};

TEST_P(CapiSeedTables, Table2) {
  check_table(local_concat(comm.c, seed::id), seed::table2, 0, "table 2");
}

TEST_P(CapiSeedTables, Table3) {
  check_table(local_concat(comm.c, seed::id_asym), seed::table3, 0, "table 3");
}

TEST_P(CapiSeedTables, Table4) {
  check_table(local_concat(comm.c, seed::id_asym), seed::table4, 1, "table 4");
}

// Any nonzero transpose means transpose (the original's "typically = 1").
TEST_P(CapiSeedTables, Table4WithTransposeTwo) {
  const std::vector<slong> ids = local_concat(comm.c, seed::id_asym);
  struct gs_data* h = setup(ids);
  ASSERT_NE(h, nullptr);
  std::vector<double> v = local_concat(comm.c, seed::u);
  const std::vector<double> want = local_concat(comm.c, seed::table4[0]);
  gs(v.data(), gs_double, gs_add, 2, h, nullptr);
  for (std::size_t i = 0; i < v.size(); ++i) expect_close(want[i], v[i], 1e-12, "transpose=2 [" + std::to_string(i) + "]");
  gs_free(h);
}

// gs_setup leaves the caller's ids unchanged, also with unique = 1.
TEST_P(CapiSeedTables, SetupLeavesIdsUnchanged) {
  std::vector<slong> ids = local_concat(comm.c, seed::id);
  const std::vector<slong> before = ids;
  struct gs_data* h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm.c, 1, GetParam().code, 0);
  ASSERT_NE(h, nullptr) << gsr_last_error_message();
  EXPECT_EQ(ids, before);
  gs_free(h);
}

std::string method_case_name(const ::testing::TestParamInfo<MethodCase>& info) {
  return info.param.name ? info.param.name : "auto";
}

INSTANTIATE_TEST_SUITE_P(Methods, CapiSeedTables, ::testing::ValuesIn(methods), method_case_name);

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
TEST(CapiVerbose, VerboseSetupWorks) {
  Comm comm;
  ASSERT_TRUE(comm.c.np == 1 || comm.c.np == 2);
  const std::vector<slong> ids = local_concat(comm.c, seed::id);
  struct gs_data* h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm.c, 0, gs_pairwise, 1);
  ASSERT_NE(h, nullptr);
  std::vector<double> v = local_concat(comm.c, seed::u);
  const std::vector<double> want = local_concat(comm.c, seed::table2[0]);
  gs(v.data(), gs_double, gs_add, 0, h, nullptr);
  for (std::size_t i = 0; i < v.size(); ++i) expect_close(want[i], v[i], 1e-12, "verbose handle [" + std::to_string(i) + "]");
  gs_free(h);
}

}  // namespace
