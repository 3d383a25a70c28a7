// core/handle_state.hpp — what a Handle owns: its communicator, the plan, the exchange
// methods (one, or with auto one per range of call sizes), statistics, and the per-request
// scratch slots reused from call to call. The plan and the methods are built complete
// before the state exists and never change.
#pragma once

#include "core/ledger.hpp"
#include "exchange/exchange.hpp"
#include "local/kernels.hpp"
#include "mpi/comm.hpp"
#include "plan/plan.hpp"

#include <gsr/handle.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace gsr::detail {

/// A call's work on the values (handle.cpp), in its order: the same code for the handle's
/// calls and for the calls auto times (setup.cpp hands it to tune/auto_select.cpp), so auto
/// measures what a call runs. `ws` has its info and kernels set, and serves `exchange`
/// (or no exchange yet: prepare binds it).
/// Prepares the call, gathers each shared group's partial where the exchange wants it,
/// starts the exchange.
void gather_and_start(const Plan& plan, Exchange& exchange, Workspace& ws, const DataRef& data);
/// Reduces the groups this rank holds alone, while the messages travel; data of at least
/// `prefetch_from_bytes` bytes asks for its lines ahead (kernels.hpp).
void reduce_alone(const Plan& plan, const Workspace& ws, const DataRef& data, std::size_t prefetch_from_bytes);
/// Once the exchange is complete: folds each shared group's blocks and scatters the value
/// to the group's entries.
void fold_and_scatter(const Plan& plan, const Workspace& ws, const DataRef& data);

struct HandleState final : WaitWatch {
  /// Calls of at least `entry_bytes` bytes per entry (value size x k), up to the next
  /// range's start, go to exchanges[exchange] (auto_select.hpp, GSR_METHOD tables).
  struct MethodRange {
    std::size_t entry_bytes = 0;
    std::uint8_t exchange = 0;
  };
  /// `ranges` ascending from 0 bytes, consecutive ones of different exchanges; empty:
  /// exchanges[0] serves every call.
  HandleState(OwnedComm comm, Plan plan, std::vector<std::unique_ptr<Exchange>> exchanges,
              std::vector<MethodRange> ranges, Stats stats, CallLedger ledger);
  HandleState(const HandleState&) = delete;
  HandleState& operator=(const HandleState&) = delete;
  /// gs_free: the neighbours learn how many calls this rank made (core/ledger.hpp).
  ~HandleState();

  OwnedComm comm;  // our duplicate, MPI_ERRORS_RETURN; handed on to retire() at free
  const Plan plan;
  const std::vector<std::unique_ptr<Exchange>> exchanges;  // [0]: the method for one double
  const std::vector<MethodRange> ranges;
  /// The method for a call of `entry_bytes` bytes per entry (value size x k).
  Exchange& exchange_for(std::size_t entry_bytes) const;
  /// Largest number of values (one component) any single message of the methods carries;
  /// with n, it bounds the rows a call's arrays and buffers must hold (handle.cpp).
  const std::size_t max_message_values;
  Stats stats;  // fixed at setup but for buffer_bytes, refreshed when asked for

  struct Slot {
    bool busy = false;
    DataRef data;
    std::vector<void*> arrays;  // copy of the many-layout pointers: the caller's may be gone by wait
    Workspace ws;
  };
  std::vector<std::unique_ptr<Slot>> slots;
  std::size_t pending = 0;
  /// Calls with at least this many bytes of data ask for their lines ahead (kernels.hpp).
  std::size_t prefetch_from_bytes = 0;
  CallLedger ledger;  // calls made, neighbours' free notices, GSR_TIMEOUT
  /// Held by the thread inside a call of this handle, at MPI_THREAD_MULTIPLE (threads.hpp).
  std::atomic<bool> in_use{false};

  /// While a call waits: fails it if a neighbour freed the handle after fewer calls, or
  /// after GSR_TIMEOUT seconds.
  void waiting(const Workspace& ws, double seconds) override;

  /// Validates and begins one call; returns the slot. `length` is the number of values at
  /// data.base for the vec layout (ignored for many). Throws Error on bad arguments, after
  /// taking part in the exchange so that no other rank waits.
  std::size_t start(const DataRef& data, std::size_t length, const CallInfo& info);
  /// Throws Error(state) if calls of this handle started on another thread are in flight
  /// (Exchange::progress_owner); `waiting`: for a wait rather than a new call.
  void check_thread(const CallInfo* waiting) const;
  /// Exchange::progress_owner of the thread that started the calls in flight (pending > 0).
  /// Read and written under in_use, like pending.
  std::uint64_t calls_owner = 0;
  void finish(std::size_t slot);

  /// Takes part in one call without data (the neighbours learn that this rank failed and
  /// report it), then throws Error(code, message). For a shim that found the call's
  /// arguments bad before it could express them to the core.
  [[noreturn]] void fail_call(const CallInfo& info, ErrorCode code, const std::string& message);

  /// "" and the call's kernels if the arguments are fine, else what is wrong.
  std::string validate(const DataRef& data, std::size_t length, const CallInfo& info, const Kernels*& kernels) const;

private:
  /// The call's info, numbered (CallInfo::call).
  CallInfo numbered(const CallInfo& info) noexcept;
  Slot& idle_slot(const Kernels* kernels, std::size_t k, const Exchange& exchange, std::size_t& index);
  /// The method's finish; if the method gave up, the handle's other methods give up too.
  void finish_exchange(Workspace& ws);
};

}  // namespace gsr::detail
