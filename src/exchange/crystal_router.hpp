// exchange/crystal_router.hpp — hypercube-style routing in ceil(log2 P) stages for any P.
//
// Stages: the recursive halving of transfer/schedule.hpp (shared with the record
// transfer's crystal router). Each rank sends exactly one message per stage, carrying every
// row headed for the other half (combining: one message per stage, however many rows).
// After at most ceil(log2 P) stages every row has reached its destination.
//
// What travels: each holder's partial of a shared group is multicast to the group's other
// holders (a row going to several destinations across a split is sent once and duplicated
// only where the destinations part). Every holder then folds all holders' partials in
// ascending rank order itself, exactly like pairwise: bitwise-equal copies, and bitwise the
// same result as pairwise for every op and domain. The routes are computed once at setup by
// sending row descriptors through the same stages; a descriptor names the row's source
// rank and, for each destination, the destination rank and the group's position in the
// list of groups that destination shares with the source (ascending id on both sides), so
// no ids travel, not even at setup. A call only packs rows, sends one message per stage
// and folds.
#pragma once

#include "exchange/exchange.hpp"
#include "transfer/schedule.hpp"

#include <cstdint>
#include <vector>

namespace gsr::detail {

class CrystalRouterExchange final : public Exchange {
public:
  /// Collective over inputs.comm (routes the row descriptors once).
  explicit CrystalRouterExchange(const ExchangeInputs& inputs);

  Method method() const noexcept override { return Method::crystal_router; }
  std::vector<StageStats> stages() const override;
  std::vector<MessageStats> messages() const override;
  int neighbors() const noexcept override { return neighbors_; }
  std::size_t bytes() const noexcept override;
  /// The stages (every row each sends) and the fold map.
  std::size_t call_bytes() const noexcept override;
  std::vector<int> awaited(const Workspace& ws) const override;

  /// One stage as seen from this rank.
  struct Stage {
    int send_to = -1;                         // the one rank this rank sends to
    std::vector<int> sources;                 // ranks it receives from (0, 1 or 2), ascending
    std::vector<std::size_t> source_rows;     // rows each source sends
    std::uint32_t first_segment = 0;          // segment number of sources[0]'s rows
    std::vector<std::uint32_t> send_segment;  // rows to pack: segment 0 = own partials,
    std::vector<index_t> send_row;            // segment 1 + m = the m-th message received
  };

private:
  struct Scratch;
  void do_start(Workspace& ws) override;
  bool do_progress(Workspace& ws) override;
  std::unique_ptr<MethodScratch> make_scratch() const override;
  void lay_out_call(Workspace& ws, Scratch& sc);
  void post_stage(Workspace& ws, Scratch& sc, std::size_t d);
  bool receive_stage(Workspace& ws, Scratch& sc, std::size_t d);

  MPI_Comm comm_;
  std::size_t chunk_bytes_;  // mpi/messages.hpp
  std::size_t shared_groups_ = 0;
  std::vector<Stage> stages_;
  std::uint32_t segments_ = 1;  // own partials + one per message received per call
  CombineMap combine_;          // per shared group: every holder's row, ascending rank
  int neighbors_ = 0;
};

}  // namespace gsr::detail
