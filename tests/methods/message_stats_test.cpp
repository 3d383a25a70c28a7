// Stats::messages: every point-to-point message of a call, from each rank's side. What one
// rank says it sends (stage, peer, values) must be exactly what that peer says it receives
// from it, the sent values add up to values_per_call, and pairwise's count per neighbour
// follows from the ids by hand (ring: 4 ids shared with each neighbour).
#include "world.hpp"

#include <gsr/handle.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace {

using gsr::Method;
using gsr_test::world_rank;
using gsr_test::world_size;

// Ring: rank r holds blocks r and r+1 (mod P) of 4 ids; each id is held by two ranks.
std::vector<std::int64_t> ring_ids() {
  const int p = world_size(), r = world_rank();
  std::vector<std::int64_t> ids;
  for (int b : {r, (r + 1) % p})
    for (std::int64_t j = 1; j <= 4; ++j) ids.push_back(b * 4 + j);
  return ids;
}

// (stage, from, to, values) of every message, as the senders and as the receivers see them.
using Message = std::tuple<int, int, int, long long>;

std::vector<Message> gather_all(const std::vector<gsr::MessageStats>& mine, bool sent) {
  std::vector<long long> flat;
  for (const gsr::MessageStats& m : mine) {
    if (m.sent != sent) continue;
    const int from = sent ? world_rank() : m.peer, to = sent ? m.peer : world_rank();
    flat.insert(flat.end(), {m.stage, from, to, static_cast<long long>(m.values)});
  }
  int count = static_cast<int>(flat.size());
  std::vector<int> counts(world_size()), displs(world_size());
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < world_size(); ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<long long> all(static_cast<std::size_t>(total));
  MPI_Allgatherv(flat.data(), count, MPI_LONG_LONG, all.data(), counts.data(), displs.data(), MPI_LONG_LONG,
                 MPI_COMM_WORLD);
  std::vector<Message> out;
  for (std::size_t i = 0; i + 3 < all.size(); i += 4)
    out.emplace_back(static_cast<int>(all[i]), static_cast<int>(all[i + 1]), static_cast<int>(all[i + 2]), all[i + 3]);
  std::sort(out.begin(), out.end());
  return out;
}

class MessageStatsTest : public ::testing::TestWithParam<Method> {};

TEST_P(MessageStatsTest, SendersAndReceiversAgree) {
  gsr::SetupOptions options;
  options.method = GetParam();
  gsr::Handle h(ring_ids(), MPI_COMM_WORLD, options);
  const gsr::Stats& st = h.stats();

  std::size_t sent_values = 0, sent_messages = 0;
  for (const gsr::MessageStats& m : st.messages)
    if (m.sent) {
      sent_values += m.values;
      ++sent_messages;
    }
  if (GetParam() == Method::allreduce) {
    EXPECT_TRUE(st.messages.empty());  // one collective, no point-to-point message
    return;
  }
  EXPECT_EQ(sent_values, st.values_per_call);
  EXPECT_EQ(sent_messages, st.messages_per_call);
  EXPECT_EQ(gather_all(st.messages, true), gather_all(st.messages, false));
}

TEST(MessageStatsPairwise, FourValuesPerNeighbourOnARing) {
  gsr::SetupOptions options;
  options.method = Method::pairwise;
  gsr::Handle h(ring_ids(), MPI_COMM_WORLD, options);
  const int p = world_size(), r = world_rank();
  std::vector<std::tuple<int, bool, std::size_t>> expected;  // (peer, sent, values)
  if (p == 2) {
    expected = {{1 - r, true, 8}, {1 - r, false, 8}};  // both blocks are shared with the other rank
  } else if (p > 2) {
    for (int peer : {(r + p - 1) % p, (r + 1) % p})
      for (bool sent : {true, false}) expected.emplace_back(peer, sent, 4);
  }
  std::vector<std::tuple<int, bool, std::size_t>> got;
  for (const gsr::MessageStats& m : h.stats().messages) {
    EXPECT_EQ(m.stage, 0);
    got.emplace_back(m.peer, m.sent, m.values);
  }
  std::sort(expected.begin(), expected.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
}

INSTANTIATE_TEST_SUITE_P(Methods, MessageStatsTest, ::testing::ValuesIn(gsr::registered_methods()),
                         [](const ::testing::TestParamInfo<Method>& info) {
                           return std::string(gsr::to_string(info.param));
                         });

}  // namespace
