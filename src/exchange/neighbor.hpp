// exchange/neighbor.hpp — the messages of pairwise, moved by MPI neighbourhood collectives
// over a graph communicator of the rank's neighbours, built at setup. MPI sees the whole
// exchange at once and may schedule it better than separate sends. A collective matches by
// call order and needs every block's length on both sides, so a call first announces each
// block's header and length (a fixed-size all-to-all over the edges), then moves the blocks
// (MPI_Ineighbor_alltoallv) with exactly the lengths announced: a neighbour that disagrees
// about the call, or failed, is found from its announcement, and no collective is ever
// erroneous, whatever the ranks pass. Two collectives per call: one more latency than
// pairwise's single round of messages.
#pragma once

#include "exchange/routes.hpp"
#include "mpi/comm.hpp"

namespace gsr::detail {

class NeighborExchange final : public RoutedExchange {
public:
  /// Collective over inputs.comm (creates the graph communicators).
  explicit NeighborExchange(const ExchangeInputs& inputs);

  Method method() const noexcept override { return Method::neighbor; }
  /// None when no rank shares an id: the calls make no collectives then.
  std::vector<StageStats> stages() const override { return silent_ ? std::vector<StageStats>{} : routes_.stages(); }
  std::vector<int> awaited(const Workspace& ws) const override;
  std::size_t call_bytes() const noexcept override { return routes_.call_bytes(true); }

private:
  struct Scratch;
  void do_start(Workspace& ws) override;
  bool do_progress(Workspace& ws) override;
  std::unique_ptr<MethodScratch> make_scratch() const override;
  /// Posts the blocks' collective of every call in flight whose announcements are in, in
  /// start order, stopping at the first whose are not.
  void post_blocks_in_order();
  void post_blocks(Workspace& ws, Scratch& sc);
  void release_requests(Workspace&) noexcept override {}  // a collective's request cannot be freed

  /// No rank holds an id another rank holds (P = 1, say): every rank knows it from setup,
  /// so the calls skip both collectives, as pairwise sends nothing.
  bool silent_ = false;
  OwnedComm graph_;   // the announcements' collectives
  OwnedComm blocks_;  // the blocks' collectives: a duplicate of graph_, so each kind of
                      // collective keeps its own order (see neighbor.cpp)
};

}  // namespace gsr::detail
