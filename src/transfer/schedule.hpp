// transfer/schedule.hpp — the crystal router's stage schedule: who sends to whom at each
// stage of the hypercube-style recursive halving, for any number of ranks P. One schedule
// serves both users of the pattern: the record transfer's crystal router (transfer/) and
// the gather-scatter crystal-router method (exchange/).
//
// Stages: a rank's current range [lo, hi) of n ranks splits into a lower half of ceil(n/2)
// ranks and an upper half of floor(n/2). The i-th upper rank pairs with the i-th lower
// rank; when n is odd the last lower rank has no partner and sends to the last upper rank
// instead (which then receives two messages). Each rank sends exactly one message per stage,
// carrying everything headed for the other half, then recurses into its own half. After at
// most ceil(log2 P) stages everything has reached its destination's range of one rank.
#pragma once

#include <vector>

namespace gsr::detail {

/// One stage of the recursive halving, seen from one rank (a pure function of rank and P).
struct RouterStageShape {
  int mid = 0;               // the split: ranks below mid form the lower half
  int send_to = -1;          // the one rank this rank sends to
  std::vector<int> sources;  // the ranks it receives from (0, 1 or 2), ascending
};

/// The stages of `rank` among `ranks`: at most ceil(log2 ranks) of them.
std::vector<RouterStageShape> router_stage_shapes(int rank, int ranks);

}  // namespace gsr::detail
