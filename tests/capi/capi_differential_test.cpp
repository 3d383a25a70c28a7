// The C interface against the serial reference, bit for bit, on random ids: every op x dom x
// transpose through gs_vec, gs_many, igs_vec and igs_many (gs and igs are covered by
// capi_seed_tables_test.cpp), unique = 0 and 1, every concrete method code; plus two requests
// in flight at once.
// One handle per (unique, method) keeps the number of collective calls modest at P = 3.
#include <gsr/gs.h>

#include "capi.hpp"
#include "reference.hpp"
#include "reference_random.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using gsr::Op;
using gsr::Transpose;
using gsr_test::PerRank;

constexpr std::uint64_t base_seed = 0x67735f63617069ULL;

using gsr_test::dom_of;

// The C codes name the same ops as the C++ enum, in the same order; the mapping is spelled
// out so that a swapped code in the shim would show.
gs_op c_op(Op op) {
  switch (op) {
    case Op::add:
      return gs_add;
    case Op::mul:
      return gs_mul;
    case Op::min:
      return gs_min;
    case Op::max:
      return gs_max;
    case Op::bpr:
      return gs_bpr;
  }
  return gs_op_n;
}

enum class Layout { vec2, many3, ivec2, imany2 };
const char* const layout_names[] = {"gs_vec k=2", "gs_many k=3", "igs_vec k=2", "igs_many k=2"};
const char* layout_name(Layout l) { return layout_names[static_cast<int>(l)]; }

struct Problem {
  const PerRank<std::int64_t>* ids;  // what each rank passes
  PerRank<std::int64_t> effective;   // after the reference unique, if asked
  struct gs_data* h;
  std::string name;
};

template <class T>
void run_one(const Problem& s, int rank, Op op, unsigned transpose, Layout layout, std::uint64_t seed) {
  const std::size_t r = static_cast<std::size_t>(rank);
  const std::vector<std::int64_t>& my_ids = (*s.ids)[r];
  const Transpose t = transpose ? Transpose::yes : Transpose::no;
  std::ostringstream label;
  label << "seed=" << seed << " rank=" << rank << " " << s.name << " op=" << gsr::to_string(op)
        << " dom=" << gsr::to_string(gsr::domain_of<T>()) << " transpose=" << transpose
        << " layout=" << layout_name(layout);
  gsr_clear_error();

  if (layout == Layout::vec2 || layout == Layout::ivec2) {
    const PerRank<T> input = gsr_test::random_values<T>(*s.ids, 2, op, seed);
    PerRank<T> want = input;
    gsr_test::apply(s.effective, want, 2, op, t);
    std::vector<T> got = input[r];
    if (layout == Layout::vec2) {
      gs_vec(got.data(), 2, dom_of<T>(), c_op(op), transpose, s.h, nullptr);
    } else {
      int request = -1;
      igs_vec(got.data(), 2, dom_of<T>(), c_op(op), transpose, s.h, nullptr, &request);
      gs_wait(request);
    }
    EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << label.str() << ": " << gsr_last_error_message();
    gsr_test::expect_same(want[r], got, my_ids, 2, label.str());
    return;
  }

  const std::size_t k = layout == Layout::many3 ? 3 : 2;
  std::vector<PerRank<T>> want(k);
  std::vector<std::vector<T>> got(k);
  std::vector<void*> arrays(k);
  for (std::size_t c = 0; c < k; ++c) {
    const PerRank<T> input = gsr_test::random_values<T>(*s.ids, 1, op, seed * 8 + c);
    want[c] = input;
    gsr_test::apply(s.effective, want[c], 1, op, t);
    got[c] = input[r];
    arrays[c] = got[c].data();
  }
  if (layout == Layout::many3) {
    gs_many(arrays.data(), static_cast<unsigned>(k), dom_of<T>(), c_op(op), transpose, s.h, nullptr);
  } else {
    int request = -1;
    igs_many(arrays.data(), static_cast<unsigned>(k), dom_of<T>(), c_op(op), transpose, s.h, nullptr, &request);
    gs_wait(request);
  }
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << label.str() << ": " << gsr_last_error_message();
  for (std::size_t c = 0; c < k; ++c)
    gsr_test::expect_same(want[c][r], got[c], my_ids, 1, label.str() + " array " + std::to_string(c));
}

template <class T>
void run_domain(const Problem& s, int rank, std::uint64_t& seed) {
  for (Op op : {Op::add, Op::mul, Op::min, Op::max, Op::bpr}) {
    if (op == Op::bpr && std::is_floating_point_v<T>) continue;
    for (unsigned transpose : {0u, 1u})
      for (Layout layout : {Layout::vec2, Layout::many3, Layout::ivec2, Layout::imany2})
        run_one<T>(s, rank, op, transpose, layout, ++seed);
  }
}

using gsr_test::MethodCase;

class CapiDifferential : public gsr_test::CapiTest<::testing::TestWithParam<MethodCase>> {};

TEST_P(CapiDifferential, EveryOpDomTransposeLayoutUnique) {
  const int ranks = static_cast<int>(comm.np), rank = static_cast<int>(comm.id);
  // The last rank has no entries (when there is more than one rank).
  const gsr_test::IdSet set = gsr_test::make_ids("C", base_seed, ranks, ranks > 1 ? ranks - 1 : -1);
  std::uint64_t seed = base_seed + 1000 * static_cast<std::uint64_t>(GetParam().code);
  for (int unique : {0, 1}) {
    const std::vector<std::int64_t>& mine = set.ids[static_cast<std::size_t>(rank)];
    struct gs_data* h = gs_setup(mine.data(), static_cast<uint>(mine.size()), &comm, unique, GetParam().code, 0);
    ASSERT_NE(h, nullptr) << gsr_last_error_message();
    EXPECT_STREQ(gsr_method_name(h), GetParam().name);
    const Problem s{&set.ids, unique ? gsr_test::unique_ids(set.ids) : set.ids, h,
                    std::string("method=") + GetParam().name + " unique=" + std::to_string(unique)};
    run_domain<double>(s, rank, seed);
    run_domain<float>(s, rank, seed);
    run_domain<std::int32_t>(s, rank, seed);
    run_domain<std::int64_t>(s, rank, seed);
    gs_free(h);
    EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  }
}

// Two requests in flight on one handle, advanced by gsr_progress, finished in the opposite order.
TEST_P(CapiDifferential, TwoRequestsInFlight) {
  const int ranks = static_cast<int>(comm.np), rank = static_cast<int>(comm.id);
  const std::size_t r = static_cast<std::size_t>(rank);
  const gsr_test::IdSet set = gsr_test::make_ids("D", base_seed + 5, ranks, -1);
  struct gs_data* h = gs_setup(set.ids[r].data(), static_cast<uint>(set.ids[r].size()), &comm, 0, GetParam().code, 0);
  ASSERT_NE(h, nullptr) << gsr_last_error_message();
  const PerRank<double> in_a = gsr_test::random_values<double>(set.ids, 1, Op::add, base_seed + 6);
  const PerRank<std::int64_t> in_b = gsr_test::random_values<std::int64_t>(set.ids, 3, Op::max, base_seed + 7);
  PerRank<double> want_a = in_a;
  PerRank<std::int64_t> want_b = in_b;
  gsr_test::apply(set.ids, want_a, 1, Op::add, Transpose::no);
  gsr_test::apply(set.ids, want_b, 3, Op::max, Transpose::yes);
  std::vector<double> a = in_a[r];
  std::vector<std::int64_t> b = in_b[r];
  int request_a = -1, request_b = -1;
  igs(a.data(), gs_double, gs_add, 0, h, nullptr, &request_a);
  igs_vec(b.data(), 3, gs_slong, gs_max, 1, h, nullptr, &request_b);
  EXPECT_NE(request_a, request_b);
  // gsr_progress between the starts and the waits (what long work between them would
  // call) finishes both calls' messages; its 1 says so.
  const double deadline = MPI_Wtime() + 30;
  int done = 0;
  while (!done && MPI_Wtime() < deadline) done = gsr_progress();
  EXPECT_EQ(done, 1) << "gsr_progress did not finish the messages within 30 s";
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  gs_wait(request_b);
  gs_wait(request_a);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  gsr_test::expect_same(want_a[r], a, set.ids[r], 1, "igs add (second to finish)");
  gsr_test::expect_same(want_b[r], b, set.ids[r], 3, "igs_vec max (first to finish)");
  gs_free(h);
}

INSTANTIATE_TEST_SUITE_P(Methods, CapiDifferential, ::testing::ValuesIn(gsr_test::concrete_method_cases()),
                         gsr_test::method_case_name);

}  // namespace
