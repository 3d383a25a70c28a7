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
// Memory is O(total shared pairs) on every rank, which is why auto has a size limit.
#pragma once

#include "exchange/exchange.hpp"
#include "exchange/in_flight.hpp"

#include <cstdint>
#include <limits>
#include <vector>

namespace gsr::detail {

class AllreduceExchange final : public Exchange {
public:
  /// Largest number of slots the per-call fold can address (its indices are 32-bit).
  // One slot is one element of the collective, whose count is an MPI int.
  static constexpr std::uint64_t max_addressable_slots = std::numeric_limits<int>::max();

  /// Collective. Counts the slots first; when there would be more than `max_slots`, stops
  /// there and the object is not usable() (the same verdict on every rank).
  AllreduceExchange(const Plan& plan, MPI_Comm comm, std::uint64_t max_slots = max_addressable_slots);

  bool usable() const noexcept { return usable_; }
  /// Slots over all ranks: one per (shared id, holder) pair.
  std::uint64_t dense_slots() const noexcept { return total_slots_; }

  Method method() const noexcept override { return Method::allreduce; }
  void start(Workspace& ws) override;
  void finish(Workspace& ws) override;
  std::vector<StageStats> stages() const override;
  int neighbors() const noexcept override { return rounds_; }
  std::size_t bytes() const noexcept override;

private:
  struct Scratch;
  Scratch& scratch_of(Workspace& ws);
  void complete(Workspace& ws) noexcept;

  MPI_Comm comm_;
  bool usable_ = true;
  int rounds_ = 0;                    // ceil(log2 P): rounds of a recursive-doubling allreduce
  std::size_t shared_groups_ = 0;
  std::uint64_t total_slots_ = 0;
  std::vector<std::uint64_t> my_slot_;  // per shared group: the slot this rank writes
  CombineMap combine_;                  // per shared group: its holders' slots, ascending rank
  InFlight in_flight_;
};

}  // namespace gsr::detail
