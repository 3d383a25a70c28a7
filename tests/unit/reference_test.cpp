// Checks on the test suite's own reference model (tests/support/reference.hpp), against the
// two-element example's Tables 2-4 (docs/concepts.md, typed in tests/support/reference_tables.hpp)
// and small hand-worked cases, so that the differential tests compare gsr with something known
// to be right.
#include "reference.hpp"
#include "reference_tables.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {

namespace seed = gsr_test::seed;
using gsr::Op;
using gsr::Transpose;
using gsr_test::PerRank;

PerRank<std::int64_t> two_ranks(const seed::IdRow (&ids)[2]) {
  return {{ids[0].begin(), ids[0].end()}, {ids[1].begin(), ids[1].end()}};
}

void expect_table(const seed::IdRow (&ids)[2], const seed::Row (&table)[4][2], Transpose t, const char* name) {
  for (int op = 0; op < 4; ++op) {
    PerRank<double> v = {{seed::u[0].begin(), seed::u[0].end()}, {seed::u[1].begin(), seed::u[1].end()}};
    gsr_test::apply(two_ranks(ids), v, 1, seed::ops[op], t);
    for (int r = 0; r < 2; ++r)
      for (int i = 0; i < 9; ++i)
        EXPECT_NEAR(v[r][i], table[op][r][i], 1e-12) << name << " op " << op << " element " << r + 1 << " entry " << i;
  }
}

TEST(Reference, SeedTables) {
  expect_table(seed::id, seed::table2, Transpose::no, "table 2");
  expect_table(seed::id, seed::table2, Transpose::yes, "table 2 transposed");
  expect_table(seed::id_asym, seed::table3, Transpose::no, "table 3");
  expect_table(seed::id_asym, seed::table4, Transpose::yes, "table 4");
}

TEST(Reference, UniqueGivesTable1) {
  const PerRank<std::int64_t> got = gsr_test::unique_ids(two_ranks(seed::id));
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 9; ++i) EXPECT_EQ(got[r][i], seed::id_asym[r][i]) << "element " << r + 1 << " entry " << i;
}

TEST(Reference, UniqueOnOneRankKeepsFirstUnflagged) {
  const PerRank<std::int64_t> got = gsr_test::unique_ids({{0, -5, 5, 5, -7, -7, 3}});
  EXPECT_EQ(got[0], (std::vector<std::int64_t>{0, -5, 5, -5, 7, -7, 3}));
}

TEST(Reference, UniqueOwnerAmongUnflaggedHolders) {
  // id 4 held unflagged by ranks 1 and 3 (rank 0 holds it flagged): 4 mod 2 = 0 -> rank 1.
  // id 5 flagged everywhere, held by ranks 0 and 2: 5 mod 2 = 1 -> rank 2, first entry.
  const PerRank<std::int64_t> got = gsr_test::unique_ids({{-4, -5}, {4, 4}, {-5, -5}, {4}});
  EXPECT_EQ(got[0], (std::vector<std::int64_t>{-4, -5}));
  EXPECT_EQ(got[1], (std::vector<std::int64_t>{4, -4}));
  EXPECT_EQ(got[2], (std::vector<std::int64_t>{5, -5}));
  EXPECT_EQ(got[3], (std::vector<std::int64_t>{-4}));
}

TEST(Reference, BitPrefix) {
  EXPECT_EQ(gsr_test::combine<std::int32_t>(Op::bpr, 12, 13), 6);  // 1100, 1101 -> 110
  EXPECT_EQ(gsr_test::combine<std::int32_t>(Op::bpr, 8, 1), 1);
  EXPECT_EQ(gsr_test::combine<std::int32_t>(Op::bpr, 0, 77), 0);
  EXPECT_EQ(gsr_test::combine<std::int32_t>(Op::bpr, 9, 9), 9);
  // -1 is all ones as unsigned: its prefix with 0x7fffffff is 0x7fffffff.
  EXPECT_EQ(gsr_test::combine<std::int32_t>(Op::bpr, -1, 0x7fffffff), 0x7fffffff);
  EXPECT_EQ(gsr_test::combine<std::int64_t>(Op::bpr, std::int64_t(1) << 40, (std::int64_t(1) << 40) + 1),
            std::int64_t(1) << 39);
}

TEST(Reference, IntegersWrap) {
  EXPECT_EQ(gsr_test::combine<std::int32_t>(Op::add, std::numeric_limits<std::int32_t>::max(), 1),
            std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(gsr_test::combine<std::int32_t>(Op::mul, 1 << 16, 1 << 16), 0);
  EXPECT_EQ(gsr_test::combine<std::int64_t>(Op::mul, -3, 5), -15);
}

TEST(Reference, Identities) {
  EXPECT_EQ(gsr_test::identity<double>(Op::add), 0.0);
  EXPECT_EQ(gsr_test::identity<double>(Op::mul), 1.0);
  EXPECT_EQ(gsr_test::identity<double>(Op::min), std::numeric_limits<double>::max());
  EXPECT_EQ(gsr_test::identity<double>(Op::max), -std::numeric_limits<double>::max());
  EXPECT_EQ(gsr_test::identity<std::int32_t>(Op::max), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(gsr_test::identity<std::int64_t>(Op::bpr), 0);
}

TEST(Reference, CanonicalOrderIsByRank) {
  // (1e16 + 1) - 1e16 = 0 in ascending rank order; another order would give 1.
  PerRank<std::int64_t> ids = {{42}, {42}, {42}};
  PerRank<double> v = {{1e16}, {1.0}, {-1e16}};
  gsr_test::apply(ids, v, 1, Op::add, Transpose::no);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(v[r][0], 0.0);
  // Within a rank, index order first: rank 0's partial is (1e16 + 1) = 1e16.
  PerRank<double> w = {{1e16, 1.0}, {-1e16}};
  gsr_test::apply({{7, 7}, {7}}, w, 1, Op::add, Transpose::no);
  EXPECT_EQ(w[1][0], 0.0);
}

TEST(Reference, FlagsTransposeAndIdentity) {
  // Group 3: rank 0 flagged only, rank 1 unflagged. Group 8: flagged everywhere.
  const PerRank<std::int64_t> ids = {{-3, -8, 0}, {3, -8}};
  PerRank<std::int64_t> a = {{10, 20, 30}, {40, 50}};
  gsr_test::apply(ids, a, 1, Op::add, Transpose::no);  // unflagged contribute, all receive
  EXPECT_EQ(a[0], (std::vector<std::int64_t>{40, 0, 30}));
  EXPECT_EQ(a[1], (std::vector<std::int64_t>{40, 0}));
  PerRank<std::int64_t> b = {{10, 20, 30}, {40, 60}};
  gsr_test::apply(ids, b, 1, Op::add, Transpose::yes);  // all contribute, unflagged receive
  EXPECT_EQ(b[0], (std::vector<std::int64_t>{10, 20, 30}));
  EXPECT_EQ(b[1], (std::vector<std::int64_t>{50, 60}));
  // A lone flagged entry with transpose = 0 receives the identity of op.
  PerRank<double> c = {{2.5}};
  gsr_test::apply({{-9}}, c, 1, Op::min, Transpose::no);
  EXPECT_EQ(c[0][0], std::numeric_limits<double>::max());
}

TEST(Reference, VecComponentsAreIndependent) {
  PerRank<std::int32_t> v = {{1, 100, 2, 200}, {3, 300}};
  gsr_test::apply({{5, 6}, {5}}, v, 2, Op::max, Transpose::no);
  EXPECT_EQ(v[0], (std::vector<std::int32_t>{3, 300, 2, 200}));
  EXPECT_EQ(v[1], (std::vector<std::int32_t>{3, 300}));
}

}  // namespace
