// Tables 2, 3 and 4 of the two-element example (docs/concepts.md; typed in
// tests/support/reference_tables.hpp) through the C++ handle, for every concrete method.
// Runs at P = 2 (element 1 on rank 0, element 2 on rank 1) and at P = 1 (both elements on
// the one rank, ids concatenated; Tables 3/4 use Table 1's id_asym rows concatenated).
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
using gsr::Op;
using gsr::Transpose;

using gsr_test::world_rank;
using gsr_test::world_size;

using seed::expect_close;
using seed::local_concat;

class SeedTables : public ::testing::TestWithParam<gsr::Method> {
protected:
  void SetUp() override {
    ASSERT_TRUE(world_size() == 1 || world_size() == 2)
        << "the two-element tables hold two elements: run at P = 1 or 2";
  }
  gsr::SetupOptions options() const { return gsr_test::with_method(GetParam()); }

  // Applies `op` to Table 1's u (as type T, scaled) on a handle built from `ids` and
  // compares with `table` (scaled the same way), through the plain, vec and many layouts.
  template <class T>
  void check(gsr::Handle& h, const seed::Row (&table)[4][2], int op_index, Transpose t, double scale, double rel,
             const std::string& name) {
    const Op op = seed::ops[op_index];
    const std::vector<double> u = local_concat(seed::u);
    const std::vector<double> want = local_concat(table[op_index]);
    const auto as_t = [&](double x) {
      return static_cast<T>(std::is_integral_v<T> ? std::llround(x * scale) : x * scale);
    };
    const std::string label = name + " op=" + std::string(gsr::to_string(op)) +
                              " dom=" + std::string(gsr::to_string(gsr::domain_of<T>())) +
                              " method=" + std::string(gsr::to_string(GetParam()));

    // plain
    std::vector<T> v(u.size());
    for (std::size_t i = 0; i < u.size(); ++i) v[i] = as_t(u[i]);
    h.apply(std::span<T>(v), op, t);
    for (std::size_t i = 0; i < u.size(); ++i)
      expect_close(want[i] * scale, double(v[i]), rel, label + " plain [" + std::to_string(i) + "]");

    // vec, k = 2: the second component is an identical copy (also for mul, min, max)
    std::vector<T> w(2 * u.size());
    for (std::size_t i = 0; i < u.size(); ++i) w[2 * i] = w[2 * i + 1] = as_t(u[i]);
    h.apply_vec(std::span<T>(w), 2, op, t);
    for (std::size_t i = 0; i < u.size(); ++i)
      for (int c = 0; c < 2; ++c)
        expect_close(want[i] * scale, double(w[2 * i + c]), rel,
                     label + " vec [" + std::to_string(i) + "," + std::to_string(c) + "]");

    // many, k = 2
    std::vector<T> a(u.size()), b(u.size());
    for (std::size_t i = 0; i < u.size(); ++i) a[i] = b[i] = as_t(u[i]);
    T* arrays[2] = {a.data(), b.data()};
    h.apply_many(std::span<T* const>(arrays, 2), op, t);
    for (std::size_t i = 0; i < u.size(); ++i) {
      expect_close(want[i] * scale, double(a[i]), rel, label + " many[0][" + std::to_string(i) + "]");
      expect_close(want[i] * scale, double(b[i]), rel, label + " many[1][" + std::to_string(i) + "]");
    }
  }

  void check_table(const seed::IdRow (&ids)[2], const seed::Row (&table)[4][2], Transpose t, const std::string& name) {
    const std::vector<std::int64_t> local_ids = local_concat(ids);
    gsr::Handle h(local_ids, MPI_COMM_WORLD, options());
    ASSERT_EQ(h.size(), local_ids.size());
    for (int op = 0; op < 4; ++op) {
      check<double>(h, table, op, t, 1.0, 1e-12, name);
      check<float>(h, table, op, t, 1.0, 1e-6, name);
      // Integers: the table scaled by 10 is exact for add, min, max; mul is exact only where
      // each group has a single contributor (Table 3).
      if (seed::ops[op] != Op::mul || &table == &seed::table3) {
        check<std::int32_t>(h, table, op, t, 10.0, 0.0, name);
        check<std::int64_t>(h, table, op, t, 10.0, 0.0, name);
      }
    }
  }
};

TEST_P(SeedTables, Table2Symmetric) { check_table(seed::id, seed::table2, Transpose::no, "table 2"); }

// With no flagged ids, transpose makes no difference: Table 2 again.
TEST_P(SeedTables, Table2SymmetricTransposed) {
  check_table(seed::id, seed::table2, Transpose::yes, "table 2 (transpose=1)");
}

TEST_P(SeedTables, Table3AsymmetricNoTranspose) { check_table(seed::id_asym, seed::table3, Transpose::no, "table 3"); }

TEST_P(SeedTables, Table4AsymmetricTranspose) { check_table(seed::id_asym, seed::table4, Transpose::yes, "table 4"); }

// The non-blocking path gives Table 2 as well.
TEST_P(SeedTables, Table2NonBlocking) {
  const std::vector<std::int64_t> ids = local_concat(seed::id);
  gsr::Handle h(ids, MPI_COMM_WORLD, options());
  for (int op = 0; op < 4; ++op) {
    std::vector<double> v = local_concat(seed::u);
    const std::vector<double> want = local_concat(seed::table2[op]);
    gsr::Request req = h.start(std::span<double>(v), seed::ops[op]);
    EXPECT_TRUE(req.pending());
    req.wait();
    EXPECT_FALSE(req.pending());
    for (std::size_t i = 0; i < v.size(); ++i)
      expect_close(want[i], v[i], 1e-12, "non-blocking op " + std::to_string(op) + " [" + std::to_string(i) + "]");
  }
}

// Statistics of the two-element example, worked out by hand: nodes 3, 6 and 9 are the only groups
// with more than one entry. At P = 2 each rank has one neighbour and, with pairwise, sends it
// one message of 3 values; at P = 1 the three groups are local and nothing is sent.
TEST(SeedStats, PairwiseStatistics) {
  const std::vector<std::int64_t> ids = local_concat(seed::id);
  gsr::Handle h(ids, MPI_COMM_WORLD, gsr_test::with_method(gsr::Method::pairwise));
  const gsr::Stats& st = h.stats();
  EXPECT_EQ(st.method, gsr::Method::pairwise);
  EXPECT_FALSE(st.method_reason.empty());
  EXPECT_EQ(st.ranks, world_size());
  EXPECT_EQ(st.local_entries, ids.size());
  struct Expected {
    std::size_t active_entries, local_groups, shared_groups;
    std::int64_t global_shared_ids;
    int neighbors;
    std::size_t messages, values;
  };
  const Expected want = world_size() == 2 ? Expected{3, 0, 3, 3, 1, 1, 3} : Expected{6, 3, 0, 0, 0, 0, 0};
  EXPECT_EQ(st.active_entries, want.active_entries);
  EXPECT_EQ(st.local_groups, want.local_groups);
  EXPECT_EQ(st.shared_groups, want.shared_groups);
  EXPECT_EQ(st.global_shared_ids, want.global_shared_ids);
  EXPECT_EQ(st.neighbors, want.neighbors);
  EXPECT_EQ(st.messages_per_call, want.messages);
  EXPECT_EQ(st.values_per_call, want.values);
  if (world_size() == 2) {
    EXPECT_EQ(st.bytes_per_call(sizeof(double), 2), 3u * 8u * 2u);
    EXPECT_EQ(st.neighbors_spread.min, 1.0);
    EXPECT_EQ(st.neighbors_spread.max, 1.0);
  }
  EXPECT_GT(st.handle_bytes, 0u);
  // What one call reads of the plan and of pairwise's routes. P = 2: one run of three shared
  // groups of one local entry (the run, 32 bytes; the groups' rows and entries, 24), the one
  // neighbour (its rank and its row's two offsets, 20); the partials are gathered straight
  // into the message and the fold takes the two blocks in order, so neither the message's
  // group list nor the fold map is read. P = 1: one run of three local pairs (24 bytes) and
  // their six entries (24).
  EXPECT_EQ(st.call_index_bytes, world_size() == 2 ? 76u : 48u);
  EXPECT_GE(st.memory_spread.max, st.memory_spread.min);
  if (world_rank() == 0) {
    EXPECT_NE(h.summary().find("pairwise"), std::string::npos) << h.summary();
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, SeedTables, ::testing::ValuesIn(gsr::registered_methods()), gsr_test::method_name);

}  // namespace
