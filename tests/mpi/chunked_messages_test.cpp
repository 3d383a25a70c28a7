// Messages too long for one MPI call (mpi/messages.hpp): they go whole through MPI-4's
// large-count calls or, where MPI lacks them, in chunks. Real messages over 2 GiB need more
// memory than a test run should take (tests/mpi/huge_message.cpp is the opt-in test), so
// these tests pass a chunk limit of a few dozen bytes (MessageOptions::chunk_bytes, and the
// same argument to the functions of mpi/messages.hpp): every message at least that long
// then travels in chunks, and the results must be exactly what they are in one piece.
#include <gsr/handle.hpp>

#include "method_param.hpp"
#include "mpi/messages.hpp"
#include "transfer/sparse_exchange.hpp"
#include "reference_random.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using gsr::detail::chunk_limit;
using gsr::detail::post_allreduce_in_place;
using gsr::detail::post_send;
using gsr_test::world_rank;
using gsr_test::world_size;

constexpr std::size_t limit = 40;

/// Every test passes the limit itself; the barriers keep one test's messages apart from
/// the next's.
class Chunked : public ::testing::Test {
protected:
  void SetUp() override { MPI_Barrier(MPI_COMM_WORLD); }
  void TearDown() override { MPI_Barrier(MPI_COMM_WORLD); }
};

/// The byte at position i of the message of length `length` that rank `from` sends.
std::byte pattern(int from, std::size_t length, std::size_t i) {
  return static_cast<std::byte>((static_cast<std::size_t>(from) * 131 + length * 7 + i * 13) % 251);
}

std::vector<std::byte> message(int from, std::size_t length) {
  std::vector<std::byte> bytes(length);
  for (std::size_t i = 0; i < length; ++i) bytes[i] = pattern(from, length, i);
  return bytes;
}

// Lengths around the limit: below, at, above, exact multiples (which end with an empty chunk).
const std::size_t lengths[] = {0, 1, limit - 1, limit, limit + 1, 2 * limit, 3 * limit + 5, 1000};

std::size_t chunks_of(std::size_t length) { return length < limit ? 1 : length / limit + 1; }

TEST_F(Chunked, LimitIsInEffect) {
  EXPECT_EQ(chunk_limit(limit), limit);
  EXPECT_NE(chunk_limit(0), limit) << "the limit is the caller's, not a setting left behind";
}

TEST_F(Chunked, RingOfMessagesArrivesWholeInOrder) {
  const int p = world_size(), me = world_rank();
  const int next = (me + 1) % p, prev = (me + p - 1) % p;
  std::vector<std::vector<std::byte>> outgoing;
  std::vector<MPI_Request> requests;
  for (std::size_t length : lengths) {
    outgoing.push_back(message(me, length));
    const std::size_t before = requests.size();
    post_send(outgoing.back().data(), length, next, 7, MPI_COMM_WORLD, requests, limit);
    EXPECT_EQ(requests.size() - before, chunks_of(length)) << "length " << length;
  }
  for (std::size_t length : lengths) {
    // Alternate the blocking and the non-blocking probe.
    gsr::detail::ProbedMessage probed;
    if (length % 2 == 0) {
      probed = gsr::detail::probe(MPI_COMM_WORLD, prev, 7, limit);
    } else {
      std::optional<gsr::detail::ProbedMessage> got;
      while (!(got = gsr::detail::try_probe(MPI_COMM_WORLD, prev, 7, limit))) {
      }
      probed = std::move(*got);
    }
    ASSERT_EQ(probed.bytes, length);
    EXPECT_EQ(probed.source, prev);
    EXPECT_EQ(probed.more.size() + 1, chunks_of(length)) << "length " << length;
    std::vector<std::byte> in(length);
    gsr::detail::receive(probed, in.data());
    EXPECT_EQ(in, message(prev, length)) << "length " << length;
  }
  ASSERT_EQ(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), MPI_SUCCESS);
}

TEST_F(Chunked, SparseExchangeReassemblesChunkedMessages) {
  const int p = world_size(), me = world_rank();
  // Rank r sends rank s (s != r) a message whose length depends on both.
  auto length_of = [](int from, int to) {
    return lengths[static_cast<std::size_t>(from * 3 + to) % std::size(lengths)];
  };
  std::vector<gsr::detail::ByteMessage> outgoing;
  for (int to = 0; to < p; ++to)
    if (to != me) outgoing.push_back({to, message(me, length_of(me, to))});
  const auto received = gsr::detail::sparse_exchange_bytes(MPI_COMM_WORLD, 9, outgoing, limit);
  ASSERT_EQ(received.size(), static_cast<std::size_t>(p - 1));
  for (const auto& m : received) {
    ASSERT_NE(m.rank, me);
    EXPECT_EQ(m.bytes, message(m.rank, length_of(m.rank, me))) << "from rank " << m.rank;
  }
}

TEST_F(Chunked, AllreduceSplitIntoSeveralCollectives) {
  const int p = world_size(), me = world_rank();
  constexpr std::size_t count = 1001;  // 8008 bytes: 201 collectives of at most 5 values
  std::vector<std::uint64_t> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = (i % static_cast<std::size_t>(me + 2) == 0) << me | i << 8;
  std::vector<MPI_Request> requests;
  post_allreduce_in_place(values.data(), count, MPI_UINT64_T, sizeof(std::uint64_t), MPI_BOR, MPI_COMM_WORLD, requests,
                          limit);
  EXPECT_EQ(requests.size(), (count + limit / 8 - 1) / (limit / 8));
  ASSERT_EQ(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), MPI_SUCCESS);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t want = i << 8;
    for (int r = 0; r < p; ++r)
      if (i % static_cast<std::size_t>(r + 2) == 0) want |= std::uint64_t(1) << r;
    ASSERT_EQ(values[i], want) << "value " << i;
  }
}

// Every method, set up and called with chunked messages, against the serial reference.
class ChunkedMethods : public Chunked, public ::testing::WithParamInterface<gsr::Method> {};

template <class T>
void check_against_reference(gsr::Handle& h, gsr::Method method, const gsr_test::IdSet& set, std::size_t k, gsr::Op op,
                             std::uint64_t seed) {
  const auto rank = static_cast<std::size_t>(world_rank());
  const gsr_test::PerRank<T> input = gsr_test::random_values<T>(set.ids, k, op, seed);
  gsr_test::PerRank<T> want = input;
  gsr_test::apply(set.ids, want, k, op, gsr::Transpose::no);
  std::vector<T> got = input[rank];
  if (k == 1)
    h.apply(std::span<T>(got), op);
  else
    h.apply_vec(std::span<T>(got), k, op);
  gsr_test::expect_same(want[rank], got, set.ids[rank], k,
                        "method " + std::string(gsr::to_string(method)) + " k=" + std::to_string(k));
}

TEST_P(ChunkedMethods, SameResultsAsTheReference) {
  const gsr_test::IdSet set =
      gsr_test::make_ids("chunked", 0x6368756e6b ^ static_cast<unsigned>(world_size()), world_size(), -1);
  gsr::SetupOptions options = gsr_test::with_method(GetParam());
  options.messages.chunk_bytes = limit;
  gsr::Handle h(set.ids[static_cast<std::size_t>(world_rank())], MPI_COMM_WORLD, options);
  ASSERT_EQ(h.stats().method, GetParam());
  std::uint64_t seed = 1;
  for (std::size_t k : {1, 3, 17}) {
    check_against_reference<double>(h, GetParam(), set, k, gsr::Op::add, ++seed);
    check_against_reference<std::int64_t>(h, GetParam(), set, k, gsr::Op::min, ++seed);
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, ChunkedMethods, ::testing::ValuesIn(gsr::registered_methods()),
                         gsr_test::method_name);

}  // namespace
