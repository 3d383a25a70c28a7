// Randomized differential tests: the handle against the serial reference (reference.hpp),
// bit for bit, for every op x domain x transpose x layout x unique x method.
//
// Every rank builds the same global problem from a fixed seed (all ranks' ids and values), so
// the reference needs no communication; each rank hands its own slice to gsr and compares its
// own entries. The ids have zeros, flags, duplicates within a rank, ids above 2^32 (some equal
// to small ids modulo 2^32) and ranks with no entries. Collective calls cost milliseconds at
// P > 2 on an oversubscribed machine, so one handle per (id set, unique, method) serves all
// combinations.
#include <gsr/handle.hpp>

#include "method_param.hpp"
#include "world.hpp"
#include "reference.hpp"
#include "reference_random.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace {

using gsr::Domain;
using gsr::Op;
using gsr::Transpose;
using gsr_test::expect_same;
using gsr_test::IdSet;
using gsr_test::make_ids;
using gsr_test::PerRank;
using gsr_test::random_values;

constexpr std::uint64_t base_seed = 0x6e656b35303030ULL;  // fixed: failures must reproduce

using gsr_test::world_rank;
using gsr_test::world_size;

// ---- the matrix ---------------------------------------------------------------------------

enum class Layout { plain, plain_nonblocking, vec3, many2 };
const char* const layout_names[] = {"plain", "plain(start/wait)", "vec k=3", "many k=2"};
const char* layout_name(Layout l) { return layout_names[static_cast<int>(l)]; }

struct Case {
  const IdSet* set;
  PerRank<std::int64_t> effective_ids;  // after reference unique, if asked
  bool unique;
  gsr::Method method;
};

template <class T>
void run_one(gsr::Handle& h, const Case& c, Op op, Transpose t, Layout layout, std::uint64_t seed) {
  const int rank = world_rank();
  const std::vector<std::int64_t>& my_ids = c.set->ids[static_cast<std::size_t>(rank)];
  std::ostringstream label;
  label << "seed=" << seed << " P=" << world_size() << " rank=" << rank << " ids=" << c.set->name
        << " unique=" << c.unique << " method=" << gsr::to_string(c.method) << " op=" << gsr::to_string(op)
        << " dom=" << gsr::to_string(gsr::domain_of<T>()) << " transpose=" << int(t)
        << " layout=" << layout_name(layout);

  switch (layout) {
    case Layout::plain:
    case Layout::plain_nonblocking: {
      const PerRank<T> input = random_values<T>(c.set->ids, 1, op, seed);
      PerRank<T> want = input;
      gsr_test::apply(c.effective_ids, want, 1, op, t);
      std::vector<T> got = input[static_cast<std::size_t>(rank)];
      if (layout == Layout::plain) {
        h.apply(std::span<T>(got), op, t);
      } else {
        gsr::Request req = h.start(std::span<T>(got), op, t);
        req.wait();
      }
      expect_same(want[static_cast<std::size_t>(rank)], got, my_ids, 1, label.str());
      break;
    }
    case Layout::vec3: {
      const PerRank<T> input = random_values<T>(c.set->ids, 3, op, seed);
      PerRank<T> want = input;
      gsr_test::apply(c.effective_ids, want, 3, op, t);
      std::vector<T> got = input[static_cast<std::size_t>(rank)];
      h.apply_vec(std::span<T>(got), 3, op, t);
      expect_same(want[static_cast<std::size_t>(rank)], got, my_ids, 3, label.str());
      break;
    }
    case Layout::many2: {
      const PerRank<T> in0 = random_values<T>(c.set->ids, 1, op, seed);
      const PerRank<T> in1 = random_values<T>(c.set->ids, 1, op, seed ^ 0x5555);
      PerRank<T> want0 = in0, want1 = in1;
      gsr_test::apply(c.effective_ids, want0, 1, op, t);
      gsr_test::apply(c.effective_ids, want1, 1, op, t);
      std::vector<T> got0 = in0[static_cast<std::size_t>(rank)], got1 = in1[static_cast<std::size_t>(rank)];
      T* arrays[2] = {got0.data(), got1.data()};
      h.apply_many(std::span<T* const>(arrays, 2), op, t);
      expect_same(want0[static_cast<std::size_t>(rank)], got0, my_ids, 1, label.str() + " array 0");
      expect_same(want1[static_cast<std::size_t>(rank)], got1, my_ids, 1, label.str() + " array 1");
      break;
    }
  }
}

template <class T>
void run_domain(gsr::Handle& h, const Case& c, bool all_layouts, std::uint64_t& seed) {
  const Op ops[] = {Op::add, Op::mul, Op::min, Op::max, Op::bpr};
  for (Op op : ops) {
    if (op == Op::bpr && std::is_floating_point_v<T>) continue;
    for (Transpose t : {Transpose::no, Transpose::yes}) {
      if (!all_layouts) {
        run_one<T>(h, c, op, t, Layout::plain, ++seed);
        continue;
      }
      for (Layout layout : {Layout::plain, Layout::plain_nonblocking, Layout::vec3, Layout::many2})
        run_one<T>(h, c, op, t, layout, ++seed);
    }
  }
}

class Differential : public ::testing::TestWithParam<gsr::Method> {};

TEST_P(Differential, EveryOpDomainTransposeLayoutUnique) {
  const int ranks = world_size();
  const int rank = world_rank();
  // Two id sets: one with the last rank empty, one with rank 0 empty (at P = 1 neither is).
  // The second runs the plain layout only, to keep the number of calls modest at P > 2.
  const IdSet sets[] = {make_ids("A", base_seed, ranks, ranks > 1 ? ranks - 1 : -1),
                        make_ids("B", base_seed + 1, ranks, ranks > 1 ? 0 : -1)};
  std::uint64_t seed = base_seed + 1000 * static_cast<std::uint64_t>(GetParam());
  for (const IdSet& set : sets) {
    for (bool unique : {false, true}) {
      Case c{&set, unique ? gsr_test::unique_ids(set.ids) : set.ids, unique, GetParam()};
      gsr::SetupOptions options = gsr_test::with_method(GetParam());
      options.unique = unique;
      const std::vector<std::int64_t>& my_ids = set.ids[static_cast<std::size_t>(rank)];
      gsr::Handle h(my_ids, MPI_COMM_WORLD, options);
      ASSERT_EQ(h.size(), my_ids.size());
      EXPECT_EQ(h.stats().method, GetParam());
      const bool all_layouts = &set == &sets[0];
      run_domain<double>(h, c, all_layouts, seed);
      run_domain<float>(h, c, all_layouts, seed);
      run_domain<std::int32_t>(h, c, all_layouts, seed);
      run_domain<std::int64_t>(h, c, all_layouts, seed);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, Differential, ::testing::ValuesIn(gsr::registered_methods()), gsr_test::method_name);

// make_unique against the reference rule on random ids (method-independent).
TEST(DifferentialUnique, MakeUniqueMatchesReference) {
  const int ranks = world_size();
  const int rank = world_rank();
  for (std::uint64_t s = 0; s < 3; ++s) {
    const IdSet set = make_ids("U" + std::to_string(s), base_seed + 77 + s, ranks, ranks > 2 ? 1 : -1);
    const PerRank<std::int64_t> want = gsr_test::unique_ids(set.ids);
    std::vector<std::int64_t> got = set.ids[static_cast<std::size_t>(rank)];
    gsr::make_unique(got, MPI_COMM_WORLD);
    const std::vector<std::int64_t>& w = want[static_cast<std::size_t>(rank)];
    ASSERT_EQ(got.size(), w.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_EQ(got[i], w[i]) << "id set " << set.name << " rank " << rank << " entry " << i << " (input id "
                              << set.ids[static_cast<std::size_t>(rank)][i] << ")";
  }
}

// The MPI gather-based entry points of the reference agree with the global model (a check on
// the test tool itself, and of expected() as other tests use it).
TEST(DifferentialReference, GatheredExpectedMatchesGlobalModel) {
  const int ranks = world_size();
  const int rank = world_rank();
  const IdSet set = make_ids("R", base_seed + 99, ranks, -1);
  const PerRank<double> values = random_values<double>(set.ids, 2, Op::add, base_seed + 100);
  PerRank<double> global = values;
  gsr_test::apply(set.ids, global, 2, Op::add, Transpose::yes);
  const std::vector<double> gathered =
      gsr_test::expected<double>(set.ids[static_cast<std::size_t>(rank)], values[static_cast<std::size_t>(rank)], 2,
                                 Op::add, Transpose::yes, MPI_COMM_WORLD);
  expect_same(global[static_cast<std::size_t>(rank)], gathered, set.ids[static_cast<std::size_t>(rank)], 2,
              "reference gather");
}

}  // namespace
