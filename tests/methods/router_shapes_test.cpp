// The crystal router's stages (recursive halving) for every P up to 70, without MPI: each
// rank sends one message per stage to a rank that expects it, there are ceil(log2 P) stages,
// and a row multicast along the stages' rules reaches every destination exactly once.
#include "exchange/crystal_router.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {

using gsr::detail::router_stage_shapes;
using gsr::detail::RouterStageShape;

int ceil_log2(int p) {
  int d = 0;
  while ((1 << d) < p) ++d;
  return d;
}

std::vector<std::vector<RouterStageShape>> all_shapes(int ranks) {
  std::vector<std::vector<RouterStageShape>> shapes;
  for (int r = 0; r < ranks; ++r) shapes.push_back(router_stage_shapes(r, ranks));
  return shapes;
}

TEST(RouterShapes, StageCountIsCeilLog2) {
  for (int ranks = 1; ranks <= 70; ++ranks) {
    std::size_t most = 0;
    for (const auto& s : all_shapes(ranks)) {
      EXPECT_LE(s.size(), static_cast<std::size_t>(ceil_log2(ranks))) << "P=" << ranks;
      most = std::max(most, s.size());
    }
    EXPECT_EQ(most, static_cast<std::size_t>(ceil_log2(ranks))) << "P=" << ranks;
  }
}

TEST(RouterShapes, EverySendIsExpectedAndEveryReceiveIsSent) {
  for (int ranks = 2; ranks <= 70; ++ranks) {
    const auto shapes = all_shapes(ranks);
    for (int r = 0; r < ranks; ++r) {
      for (std::size_t d = 0; d < shapes[r].size(); ++d) {
        const RouterStageShape& mine = shapes[r][d];
        ASSERT_GE(mine.send_to, 0);
        ASSERT_LT(mine.send_to, ranks);
        EXPECT_NE(mine.send_to, r);
        // The receiver is at the same stage and lists r as a source.
        const auto& theirs = shapes[mine.send_to];
        ASSERT_LT(d, theirs.size()) << "P=" << ranks << " rank " << r << " stage " << d;
        EXPECT_EQ(std::count(theirs[d].sources.begin(), theirs[d].sources.end(), r), 1)
            << "P=" << ranks << " rank " << r << " sends to " << mine.send_to << " at stage " << d;
        EXPECT_LE(mine.sources.size(), 2u);
        EXPECT_TRUE(std::is_sorted(mine.sources.begin(), mine.sources.end()));
        for (int source : mine.sources) EXPECT_EQ(shapes[source][d].send_to, r) << "P=" << ranks;
        // Partners sit on opposite sides of the split.
        EXPECT_NE(r < mine.mid, mine.send_to < mine.mid) << "P=" << ranks << " rank " << r;
      }
    }
  }
}

/// Multicasts one row from `source` to `dests` along the stage rules; returns how many
/// copies each rank ends up holding as a destination.
std::vector<int> route(const std::vector<std::vector<RouterStageShape>>& shapes, int source,
                       const std::vector<int>& dests) {
  const int ranks = static_cast<int>(shapes.size());
  std::vector<std::vector<std::vector<int>>> held(static_cast<std::size_t>(ranks));  // per rank: copies' dests
  std::vector<int> delivered(static_cast<std::size_t>(ranks), 0);
  held[source].push_back(dests);
  for (int d = 0; d < ceil_log2(ranks); ++d) {
    std::vector<std::vector<std::vector<int>>> next(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
      if (static_cast<std::size_t>(d) >= shapes[r].size()) {
        for (auto& copy : held[r]) next[r].push_back(copy);
        continue;
      }
      const RouterStageShape& s = shapes[r][d];
      for (const auto& copy : held[r]) {
        std::vector<int> stay, go;
        for (int t : copy) ((t < s.mid) != (r < s.mid) ? go : stay).push_back(t);
        if (!stay.empty()) next[r].push_back(stay);
        if (!go.empty()) next[s.send_to].push_back(go);
      }
    }
    held = std::move(next);
    for (int r = 0; r < ranks; ++r)
      for (auto& copy : held[r]) {
        const auto it = std::find(copy.begin(), copy.end(), r);
        if (it != copy.end()) {
          ++delivered[r];
          copy.erase(it);
        }
      }
  }
  for (int r = 0; r < ranks; ++r)
    for (const auto& copy : held[r]) EXPECT_TRUE(copy.empty()) << "undelivered at rank " << r;
  return delivered;
}

TEST(RouterShapes, MulticastReachesEachDestinationOnce) {
  for (int ranks = 2; ranks <= 33; ++ranks) {
    const auto shapes = all_shapes(ranks);
    for (int source = 0; source < ranks; ++source) {
      std::vector<int> everyone_else, every_third;
      for (int t = 0; t < ranks; ++t) {
        if (t == source) continue;
        everyone_else.push_back(t);
        if (t % 3 == 1) every_third.push_back(t);
      }
      for (const auto& dests : {everyone_else, every_third}) {
        const std::vector<int> got = route(shapes, source, dests);
        for (int t = 0; t < ranks; ++t) {
          const int want = std::count(dests.begin(), dests.end(), t) ? 1 : 0;
          EXPECT_EQ(got[t], want) << "P=" << ranks << " source " << source << " rank " << t;
        }
      }
    }
  }
}

}  // namespace
