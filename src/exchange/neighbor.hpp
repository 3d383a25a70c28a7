// exchange/neighbor.hpp — the messages of pairwise, moved by one MPI neighbourhood
// collective per call (MPI_Ineighbor_alltoallv) over a graph communicator of the rank's
// neighbours, built at setup. MPI sees the whole exchange at once and may schedule it
// better than separate sends; there is no probing, because a collective matches by call
// order: every block still starts with the MessageHeader, which is what catches a neighbour
// that disagrees about the call. Blocks of unexpected length may arrive cut short or not at
// all, so the two ranks of such an edge then exchange their headers again, point to point.
#pragma once

#include "exchange/exchange.hpp"
#include "exchange/pairwise.hpp"
#include "mpi/comm.hpp"

namespace gsr::detail {

class NeighborExchange final : public Exchange {
public:
  /// Collective over inputs.comm (creates the graph communicator).
  explicit NeighborExchange(const ExchangeInputs& inputs);

  Method method() const noexcept override { return Method::neighbor; }
  std::vector<StageStats> stages() const override { return routes_.stages(); }
  std::vector<MessageStats> messages() const override { return routes_.messages(); }
  int neighbors() const noexcept override { return static_cast<int>(routes_.neighbor_ranks.size()); }
  std::size_t bytes() const noexcept override { return routes_.bytes(); }
  std::vector<int> awaited(const Workspace& ws) const override;

private:
  struct Scratch;
  void begin(Workspace& ws) override;
  bool advance(Workspace& ws) override;
  bool look_at_blocks(Workspace& ws, Scratch& sc);
  bool hear_follow_up(Workspace& ws, Scratch& sc);
  void release_requests(Workspace& ws) noexcept override;

  MPI_Comm comm_;  // the handle's communicator: the follow-up's point-to-point messages
  NeighborRoutes routes_;
  OwnedComm graph_;
  CallTags tags_;
};

}  // namespace gsr::detail
