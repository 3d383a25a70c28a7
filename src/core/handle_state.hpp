// core/handle_state.hpp — what a Handle owns: its communicator, the plan, the exchange
// method, statistics, and the per-request scratch slots reused from call to call.
#pragma once

#include "exchange/exchange.hpp"
#include "local/kernels.hpp"
#include "plan/plan.hpp"

#include <gsr/handle.hpp>

#include <memory>
#include <string>
#include <vector>

namespace gsr::detail {

struct HandleState {
  HandleState() = default;
  HandleState(const HandleState&) = delete;
  HandleState& operator=(const HandleState&) = delete;
  ~HandleState();

  MPI_Comm comm = MPI_COMM_NULL;  // our duplicate, MPI_ERRORS_RETURN
  Plan plan;
  std::unique_ptr<Exchange> exchange;
  Stats stats;

  struct Slot {
    bool busy = false;
    DataRef data;
    std::vector<void*> arrays;  // copy of the many-layout pointers: the caller's may be gone by wait
    Workspace ws;
  };
  std::vector<std::unique_ptr<Slot>> slots;
  std::size_t pending = 0;
  /// Largest number of values (one component) any single message of the method carries;
  /// a call whose k and value size would push a message past MPI's int count is rejected.
  std::size_t max_message_values = 0;

  /// Validates and begins one call; returns the slot. `length` is the number of values at
  /// data.base for the vec layout (ignored for many). Throws Error on bad arguments, after
  /// taking part in the exchange so that no other rank waits.
  std::size_t start(const DataRef& data, std::size_t length, const CallInfo& info);
  void finish(std::size_t slot);

  /// Entries whose values enter a group's reduction, and entries that receive it.
  const EntryMap& contributing(Transpose t) const noexcept {
    return t == Transpose::yes || !plan.any_flagged ? plan.all_entries : plan.unflagged_entries;
  }
  const EntryMap& receiving(Transpose t) const noexcept {
    return t == Transpose::no || !plan.any_flagged ? plan.all_entries : plan.unflagged_entries;
  }

  /// "" if the arguments are fine, else what is wrong.
  std::string validate(const DataRef& data, std::size_t length, const CallInfo& info) const;
};

/// Replace the leading "gsr: " of an error message with "gsr: <function>: ".
std::string prefix_function(const std::string& message, const char* function);

}  // namespace gsr::detail
