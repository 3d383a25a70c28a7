// exchange/exchange.hpp — the one interface every exchange method implements. A method
// turns each rank's partial value per shared group (its own contribution, already folded
// locally) into the combined value per shared group. It owns its routing plan (built at
// setup from the Plan and the holders of each shared group) and nothing per call: per-call
// scratch lives in a Workspace the handle caches and reuses.
//
// Canonical order (what makes every copy bitwise equal, and every method agree): the value
// of a shared group is ((P_r0 op P_r1) op P_r2) ... over its holders r0 < r1 < r2 ..., where
// P_r is rank r's partial (the identity if r holds no contributing entry).
//
// Progress: a method never blocks. Its advance() does what it can without waiting and
// says whether the call is complete; waiting on any call advances every call in flight on
// this thread, of every handle (exchange/progress.cpp), so ranks may wait for the calls of
// different handles in different orders. Each thread keeps its own calls in flight: a call
// is waited for on the thread that started it (docs/threads.md). Calls of one method object advance in start
// order, which keeps collectives and messages of successive calls in step on every rank.
//
// Messages follow exchange/protocol.hpp. A new method is one file pair implementing this
// interface plus one line in exchange/registry.cpp.
#pragma once

#include "config/config.hpp"
#include "exchange/protocol.hpp"
#include "local/kernels.hpp"
#include "plan/plan.hpp"

#include <gsr/handle.hpp>
#include <gsr/types.hpp>

#include <mpi.h>

#include <cstddef>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace gsr::detail {

/// What a method's constructor reads: the local plan, who holds each shared group (only
/// needed at setup; the handle does not keep it), and the handle's private communicator.
struct ExchangeInputs {
  const Plan& plan;
  const Holders& holders;
  MPI_Comm comm;
  MessageSettings messages;  // the handle's timeout and chunking (config/config.hpp)
};

/// Method-specific per-call scratch (e.g. the crystal router's stage buffers).
struct MethodScratch {
  virtual ~MethodScratch() = default;
};

class Exchange;

struct Workspace {
  Exchange* exchange = nullptr;  // the method serving the call (auto may pick one per size)
  // Bookkeeping of the progress engine (exchange/progress.cpp).
  Workspace* next_in_flight = nullptr;  // the method's next call in start order
  bool done = true;                     // false from start until the call is complete
  std::exception_ptr error;             // what completing the call threw, rethrown by finish
  HeaderCheck check;                    // what the call's messages revealed so far

  CallInfo info;
  int tag = 0;                       // this call's message tag (CallTags)
  const Kernels* kernels = nullptr;  // nullptr: this rank's arguments were bad (failed round)
  std::vector<std::byte> partials;   // shared_groups * k values, this rank's partials ...
  std::byte* own = nullptr;          // ... at ws.partials.data(), or where prepare put them
  std::vector<std::byte> send, recv;
  /// Set by a complete call: the combined value of shared group r is row r of `combine`
  /// folded over `blocks`. The handle folds and scatters in one pass (Kernels::
  /// combine_scatter), so the combined values never land in a buffer of their own.
  const CombineMap* combine = nullptr;
  std::vector<std::byte> overflow;  // where a message longer than expected lands
  /// The call's requests: first `head_receives` receives posted before their messages
  /// arrive (pairwise), then sends (and collectives).
  std::vector<MPI_Request> requests;
  std::size_t head_receives = 0;
  std::vector<MPI_Status> statuses;  // room for the statuses of `requests`, where a method wants them
  std::vector<const std::byte*> blocks;
  std::unique_ptr<MethodScratch> scratch;

  /// The method's scratch of type S, created on first use.
  template <class S>
  S& scratch_as() {
    if (auto* existing = dynamic_cast<S*>(scratch.get())) return *existing;
    scratch = std::make_unique<S>();
    return static_cast<S&>(*scratch);
  }

  std::size_t bytes() const noexcept {
    return partials.capacity() + send.capacity() + recv.capacity() + overflow.capacity() +
           requests.capacity() * sizeof(MPI_Request) + statuses.capacity() * sizeof(MPI_Status);
  }
  std::span<MPI_Request> receives() noexcept { return {requests.data(), head_receives}; }
  std::span<MPI_Request> sends() noexcept { return std::span(requests).subspan(head_receives); }
};

/// Looked at now and then while finish waits for a call (not on the first, immediate look),
/// with the seconds waited so far. Throws to give up on the call (e.g. a timeout).
class WaitWatch {
public:
  virtual void waiting(const Workspace& ws, double seconds) = 0;

protected:
  ~WaitWatch() = default;
};

class Exchange {
public:
  virtual ~Exchange();
  virtual Method method() const noexcept = 0;

  /// Opens a call (ws.info and ws.kernels set), before the handle gathers its partials
  /// (`bytes` of them): returns where to gather them. Throws Error(state) if the method
  /// gave up on earlier calls. Always followed by start.
  std::byte* prepare(Workspace& ws, std::size_t bytes);
  /// Begins the call prepared: ws.own holds this rank's partials. When ws.kernels is nullptr
  /// this rank takes part without data (its headers say own_failure) so that no peer waits.
  void start(Workspace& ws);
  /// Completes the call (advancing every call in flight on this rank meanwhile), then
  /// ws.combine and ws.blocks give the combined values (unless this rank's own arguments
  /// were bad).
  /// Throws Error(mismatch) if a peer's call differs, Error(remote) if a peer failed.
  /// If `watch` throws, the method gives up on all its calls in flight (see abandon) and
  /// finish rethrows.
  void finish(Workspace& ws, WaitWatch* watch = nullptr);
  /// Whose list of calls in flight this thread's calls go on: the thread's own at
  /// MPI_THREAD_MULTIPLE, the process's below it. A call is waited for, and more calls of
  /// its handle are started, only by callers of the same owner (HandleState::check_thread).
  static const void* progress_owner() noexcept;

  /// The ranks whose messages the call still waits for; empty for a collective of all ranks.
  virtual std::vector<int> awaited(const Workspace& ws) const = 0;

  virtual std::vector<StageStats> stages() const = 0;
  virtual std::vector<MessageStats> messages() const = 0;
  virtual int neighbors() const noexcept = 0;
  virtual std::size_t bytes() const noexcept = 0;  // memory of the method's own plan

  /// Advances every call in flight on this thread, without blocking.
  static void progress_all() noexcept;

  /// Why this method gave up waiting in a call; empty while it works.
  const std::string& abandoned() const noexcept { return abandoned_; }
  /// Gives up on every call in flight and refuses later ones, as after a wait that gave up:
  /// for the other methods of a handle one of whose methods gave up (they share the
  /// communicator and its tags, so the late messages could be taken for theirs).
  void give_up(const std::string& why) noexcept {
    if (abandoned_.empty()) abandon(why);
  }

protected:
  /// This method's calls in flight, in start order (through Workspace::next_in_flight).
  Workspace* first_in_flight() const noexcept { return first_in_flight_; }
  /// The method's part of prepare: where the partials go (ws.partials by default; a method
  /// may place them where it sends them from, saving a copy per call), and what it can post
  /// before they are known (pairwise's receives, so that early messages land in place).
  /// A method that posts here cancels what it posted if it throws here or in begin.
  virtual std::byte* open(Workspace& ws, std::size_t bytes);
  /// The method's part of start: post what can be posted now.
  virtual void begin(Workspace& ws) = 0;
  /// Does what can be done without waiting; true once the call is complete (ws.combine
  /// and ws.blocks set). Throws on failure; the engine records the error for finish.
  virtual bool advance(Workspace& ws) = 0;
  /// Lets go of the call's point-to-point requests (they complete, or not, without us).
  virtual void release_requests(Workspace& ws) noexcept;

private:
  void wait_watched(Workspace& ws, WaitWatch& watch);
  /// Every call in flight fails with `why` (the one being waited for gets the watch's own
  /// error), and every later start throws Error(state): the messages of the calls given up
  /// on may still arrive and would be taken for a later call's.
  void abandon(const std::string& why) noexcept;
  void advance_calls() noexcept;  // this method's calls, in start order, while they complete
  void unlink_busy() noexcept;

  std::string abandoned_;  // why the calls were given up on; empty while the method works
  Workspace* first_in_flight_ = nullptr;
  Workspace* last_in_flight_ = nullptr;
  Exchange* next_busy_ = nullptr;  // the thread's methods with calls in flight
  Exchange* prev_busy_ = nullptr;
  Exchange** busy_list_ = nullptr;  // the head of that list, while calls are in flight
};

}  // namespace gsr::detail
