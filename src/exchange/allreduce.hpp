// exchange/allreduce.hpp — a dense reduction over the globally shared ids (MPI_Allreduce).
//
// Every (shared id, holder) pair in the whole communicator owns one slot of a dense array
// that every rank allocates. A rank writes its partial of each group it shares into its own
// slot and zeros everywhere else; a bitwise-OR allreduce then hands every rank every
// holder's partial, untouched (each slot has exactly one writer, and x | 0 = x). Each
// holder folds the slots of its groups in ascending holder rank itself: the canonical order
// of exchange.hpp, so the result is bitwise the same as pairwise for every op and domain.
//
// Slots are numbered at setup: the lowest-rank holder of each id (its leader) takes a
// run of slots from an exclusive scan of per-leader counts and tells the other holders.
// Memory is O(total shared pairs) on every rank, which is why auto has a size limit
// (ExchangeLimits in exchange/registry.hpp).
#pragma once

#include "exchange/exchange.hpp"

#include <cstdint>
#include <vector>

namespace gsr::detail {

class AllreduceExchange final : public Exchange {
public:
  /// Where this rank's slots start and how many there are over all ranks (collective: the
  /// same total on every rank). Counting comes first, so a plan too large for the method
  /// is turned down before anything is allocated.
  struct SlotCount {
    std::uint64_t first_led = 0;  // first slot of the groups this rank leads
    std::uint64_t total = 0;
  };
  static SlotCount count_slots(const ExchangeInputs& inputs);

  /// Collective over inputs.comm. `slots` is count_slots(inputs).
  AllreduceExchange(const ExchangeInputs& inputs, SlotCount slots);

  Method method() const noexcept override { return Method::allreduce; }
  std::vector<StageStats> stages() const override;
  std::vector<MessageStats> messages() const override;
  int neighbors() const noexcept override { return rounds_; }
  std::size_t bytes() const noexcept override;
  /// Each group's slot and the fold map.
  std::size_t call_bytes() const noexcept override;
  std::vector<int> awaited(const Workspace& ws) const override;

private:
  enum class Phase;
  struct Scratch;
  void do_start(Workspace& ws) override;
  bool do_progress(Workspace& ws) override;
  std::unique_ptr<MethodScratch> make_scratch() const override;
  void release_requests(Workspace&) noexcept override {}  // a collective's request cannot be freed
  bool step(Workspace& ws);  // moves the call's collectives on; true once none is in flight
  bool agreed(const Workspace& ws) const;
  void check_agreement(Workspace& ws) const;

  MPI_Comm comm_;
  std::size_t chunk_bytes_;  // mpi/messages.hpp
  int rounds_ = 0;           // ceil(log2 P): rounds of a recursive-doubling allreduce
  std::size_t shared_groups_ = 0;
  std::uint64_t total_slots_ = 0;
  std::vector<std::uint64_t> my_slot_;  // per shared group: the slot this rank writes
  CombineMap combine_;                  // per shared group: its holders' slots, ascending rank
};

}  // namespace gsr::detail
