// Ranks that disagree about a collective call (docs/methods.md, "Errors inside a call"): the
// rank with the odd argument gets gsr::Error, the others either get an error too or complete,
// and nobody hangs (the ctest timeout catches a hang). Needs P >= 2; registered at P = 2 and 3.
#include <gsr/handle.hpp>

#include "method_param.hpp"
#include "world.hpp"
#include "reference.hpp"
#include "reference_errors.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace {

using gsr::Domain;
using gsr::ErrorCode;
using gsr::Op;
using gsr::Transpose;

using gsr_test::world_rank;
using gsr_test::world_size;

bool odd_rank() { return world_rank() == world_size() - 1; }

/// Ids 1 and 2 are shared by every rank, so every rank exchanges with every other.
std::vector<std::int64_t> my_ids() { return {1, 2, 10 + world_rank()}; }

/// Runs `call` on every rank. The odd rank must throw gsr::Error; the others may throw or
/// return. Whoever throws reports a disagreement (mismatch) or another rank's failure (remote).
void expect_odd_rank_fails(const std::function<void()>& call, const std::string& what) {
  bool threw = false;
  try {
    call();
  } catch (const gsr::Error& e) {
    threw = true;
    EXPECT_TRUE(e.code() == ErrorCode::mismatch || e.code() == ErrorCode::remote)
        << what << ": rank " << world_rank() << " got " << gsr_test::code_name(e.code()) << ": " << e.what();
    EXPECT_NE(std::string(e.what()), "") << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": non-gsr exception on rank " << world_rank() << ": " << e.what();
    threw = true;
  }
  if (odd_rank()) {
    EXPECT_TRUE(threw) << what << ": the rank with the odd argument completed without an error";
  }
}

/// Setup disagreements are caught on every rank: setup communicates anyway.
void expect_every_rank_fails(const std::function<void()>& call, std::initializer_list<const char*> words,
                             const std::string& what) {
  try {
    call();
    ADD_FAILURE() << what << ": rank " << world_rank() << " completed without an error";
  } catch (const gsr::Error& e) {
    EXPECT_TRUE(e.code() == ErrorCode::mismatch || e.code() == ErrorCode::remote)
        << what << ": rank " << world_rank() << " got " << gsr_test::code_name(e.code()) << ": " << e.what();
    if (e.code() == ErrorCode::mismatch) {
      EXPECT_TRUE(gsr_test::mentions_any(e.what(), words))
          << what << ": message \"" << e.what() << "\" does not name the problem";
    }
  }
}

class BadCollective : public ::testing::TestWithParam<gsr::Method> {
protected:
  void SetUp() override { ASSERT_GE(world_size(), 2) << "needs ranks to disagree"; }
  gsr::SetupOptions options() const { return gsr_test::with_method(GetParam()); }
  /// After a failed call a fresh handle must work (nothing left over on the wire).
  void expect_fresh_handle_works() {
    gsr::Handle h(my_ids(), MPI_COMM_WORLD, options());
    std::vector<double> v = {1.0 + world_rank(), 3.0, 4.0};
    const std::vector<double> input = v;
    h.apply(std::span<double>(v), Op::max);
    EXPECT_EQ(v, gsr_test::expected<double>(my_ids(), input, 1, Op::max, Transpose::no, MPI_COMM_WORLD));
  }
};

TEST_P(BadCollective, OneRankUsesAnotherOp) {
  {
    gsr::Handle h(my_ids(), MPI_COMM_WORLD, options());
    std::vector<double> v = {1.0, 2.0, 3.0};
    expect_odd_rank_fails([&] { h.apply(std::span<double>(v), odd_rank() ? Op::max : Op::add); },
                          "op max on the last rank, add elsewhere");
  }
  expect_fresh_handle_works();
}

TEST_P(BadCollective, OneRankUsesAnotherDomain) {
  {
    gsr::Handle h(my_ids(), MPI_COMM_WORLD, options());
    std::vector<double> d = {1.0, 2.0, 3.0};
    std::vector<float> f = {1.0f, 2.0f, 3.0f};
    expect_odd_rank_fails(
        [&] {
          if (odd_rank())
            h.apply(std::span<float>(f), Op::add);
          else
            h.apply(std::span<double>(d), Op::add);
        },
        "float on the last rank, double elsewhere");
  }
  expect_fresh_handle_works();
}

TEST_P(BadCollective, OneRankUsesAnotherVectorLength) {
  {
    gsr::Handle h(my_ids(), MPI_COMM_WORLD, options());
    std::vector<std::int64_t> v(odd_rank() ? 6 : 9, 1);
    expect_odd_rank_fails([&] { h.apply_vec(std::span<std::int64_t>(v), odd_rank() ? 2 : 3, Op::add); },
                          "k = 2 on the last rank, 3 elsewhere");
  }
  expect_fresh_handle_works();
}

// Messages longer than a head (exchange/protocol.hpp: message_head_bytes) go out in two
// parts, and a receive for the head may be posted before it arrives. A rank whose k makes
// its messages far longer, or far shorter, than the others expect must still be caught by
// every rank (all share ids 1 and 2), without a truncated receive or a hang.
TEST_P(BadCollective, OneRankSendsFarLongerMessages) {
  for (const std::size_t big : {std::size_t(511), std::size_t(1500)}) {  // a head exactly; 24 KB
    for (const bool odd_is_big : {true, false}) {
      {
        gsr::Handle h(my_ids(), MPI_COMM_WORLD, options());
        const std::size_t k = odd_rank() == odd_is_big ? big : 1;
        std::vector<std::int64_t> v(3 * k, 1);
        bool threw = false;
        try {
          h.apply_vec(std::span<std::int64_t>(v), k, Op::add);
        } catch (const gsr::Error& e) {
          threw = true;
          EXPECT_TRUE(e.code() == ErrorCode::mismatch || e.code() == ErrorCode::remote)
              << "rank " << world_rank() << " got " << gsr_test::code_name(e.code()) << ": " << e.what();
        }
        // Pairwise hears from every holder directly: every rank sees the disagreement. Other
        // methods promise it to the odd rank (see expect_odd_rank_fails).
        if (odd_rank() || GetParam() == gsr::Method::pairwise)
          EXPECT_TRUE(threw) << "rank " << world_rank() << " completed with k = " << k << " while rank "
                             << world_size() - 1 << " used " << (odd_is_big ? big : 1);
      }
      expect_fresh_handle_works();
    }
  }
}

// The same long messages from every rank: the head and tail make one message again. A
// pairwise message of two rows is 16 + 16 k bytes: k = 511 fills a head of 8192 bytes
// exactly (an empty tail follows), 510 and 512 fall one row short of it and over it.
TEST_P(BadCollective, LongMessagesAgree) {
  gsr::Handle h(my_ids(), MPI_COMM_WORLD, options());
  for (const std::size_t k : {std::size_t(510), std::size_t(511), std::size_t(512), std::size_t(1500)}) {
    std::vector<std::int64_t> v(3 * k);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i) + 1000 * world_rank();
    h.apply_vec(std::span<std::int64_t>(v), k, Op::add);
    // Ids 1 and 2 (entries 0 and 1) are held by every rank: the sum of i + 1000 r over ranks.
    const std::int64_t p = world_size(), ranks_sum = 1000 * p * (p - 1) / 2;
    for (std::size_t i = 0; i < 2 * k; ++i)
      ASSERT_EQ(v[i], static_cast<std::int64_t>(i) * p + ranks_sum) << "k = " << k << ", value " << i;
    for (std::size_t i = 2 * k; i < 3 * k; ++i)
      ASSERT_EQ(v[i], static_cast<std::int64_t>(i) + 1000 * world_rank()) << "k = " << k << ", value " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, BadCollective, ::testing::ValuesIn(gsr::registered_methods()), gsr_test::method_name);

// Setup is collective and already communicates, so disagreements there are caught on every
// rank.
TEST(BadCollectiveSetup, OneRankAsksAnotherMethod) {
  ASSERT_GE(world_size(), 2);
  gsr::SetupOptions o;
  o.method = odd_rank() ? gsr::Method::allreduce : gsr::Method::pairwise;
  expect_every_rank_fails([&] { gsr::Handle h(my_ids(), MPI_COMM_WORLD, o); }, {"method"},
                          "allreduce on the last rank, pairwise elsewhere");
}

TEST(BadCollectiveSetup, OneRankAsksUnique) {
  ASSERT_GE(world_size(), 2);
  gsr::SetupOptions o;
  o.method = gsr::Method::pairwise;
  o.unique = odd_rank();
  expect_every_rank_fails([&] { gsr::Handle h(my_ids(), MPI_COMM_WORLD, o); }, {"unique"},
                          "unique on the last rank only");
}

}  // namespace
