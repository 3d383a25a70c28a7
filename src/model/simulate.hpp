// model/simulate.hpp — the per-rank plan statistics of each exchange method, computed for
// every virtual rank of a Sharing in one process, with no MPI: exactly the Stats a real
// gsr::Handle reports on that rank (stages, messages, neighbours), plus bytes per call and
// what setup sends where the method's setup is known here.
//
// By the method's routing (its registry entry, exchange/registry.hpp):
//   peers   one message to and from each rank sharing an id (NeighborRoutes): pairwise, neighbor
//   router  the rows routed through transfer/schedule.hpp's stages, class by class: crystal_router
//   dense   ceil(log2 P) rounds of the dense array of every (shared id, holder): allreduce
#pragma once

#include "model/sharing.hpp"

#include <gsr/handle.hpp>
#include <gsr/types.hpp>

#include <cstdint>
#include <vector>

namespace gsr::model {

/// What one virtual rank's plan of one method would say.
struct RankPlan {
  std::vector<StageStats> stages;       // Stats::stages
  std::vector<MessageStats> messages;   // Stats::messages, in the handle's order
  int neighbors = 0;                    // Stats::neighbors
  std::uint64_t messages_per_call = 0;  // announcements not included (see call_bytes)
  std::uint64_t values_per_call = 0;
  /// Bytes this rank sends per call of one double: 8 per value, 16 per message header, and
  /// the method's announcement per neighbour (neighbor's 24 bytes).
  std::uint64_t call_bytes = 0;
  /// Setup's own messages and bytes for this method (the crystal router's row descriptors;
  /// allreduce's slot lists); discovery, common to all methods, is not counted.
  std::uint64_t setup_messages = 0;
  std::uint64_t setup_bytes = 0;
  /// The method's memory on this rank, estimated from the plan as its code lays it out:
  /// its own plan (Stats::method_bytes: routes, the fold map of every holder's partial) and
  /// the buffers of a call of one double (Stats::buffer_bytes: partials, results, messages
  /// out and in). The local plan, the same for every method, is not counted.
  std::uint64_t plan_bytes = 0;
  std::uint64_t buffer_bytes = 0;
};

struct MethodPlans {
  Method method = Method::pairwise;
  std::vector<RankPlan> rank;         // [ranks]
  std::uint64_t allreduce_slots = 0;  // a dense method (allreduce): its array's slots (header excluded)
};

/// Throws Error(invalid_argument) for a code the registry does not know (automatic included).
MethodPlans simulate(Method method, const Sharing& sharing);

/// ceil(log2 p): the crystal router's stage bound and allreduce's rounds.
int ceil_log2(int p);

}  // namespace gsr::model
