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
// A call has three phases, each a public member the handle calls and a hook the method
// implements: prepare (do_prepare) says where to gather the partials, start (do_start)
// posts what can be posted once they are gathered, and finish waits for the call by
// making progress (do_progress) until it is complete.
//
// Progress: a method never blocks. Its do_progress does what it can without waiting and
// says whether the call is complete; waiting on any call makes progress on every call in
// flight on this thread, of every handle (exchange/progress.cpp), so ranks may wait for the
// calls of different handles in different orders. Each thread keeps its own calls in
// flight: a call is waited for on the thread that started it (docs/threads.md). Calls of
// one method object progress in start order, which keeps collectives and messages of
// successive calls in step on every rank.
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
#include <cstdint>
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

/// A method's own per-call scratch (e.g. the crystal router's stage offsets), made by its
/// Exchange::make_scratch for each workspace it serves.
struct MethodScratch {
  virtual ~MethodScratch() = default;
  /// The buffers counted in Stats::buffer_bytes (Workspace::bytes).
  virtual std::size_t bytes() const noexcept { return 0; }
};

class Exchange;

/// One call's state: what every method uses, and the method's own scratch. A workspace
/// serves one method: the first prepare binds it (sets `exchange` and makes `scratch`).
struct Workspace {
  Exchange* exchange = nullptr;  // the method serving the call (auto may pick one per size)
  // Bookkeeping of the progress engine (exchange/progress.cpp).
  Workspace* next_in_flight = nullptr;  // the method's next call in start order
  bool done = true;                     // false from start until the call is complete
  std::exception_ptr error;             // what completing the call threw, rethrown by finish
  HeaderCheck check;                    // what the call's messages revealed so far

  CallInfo info;
  const Kernels* kernels = nullptr;  // nullptr: this rank's arguments were bad (failed round)
  std::vector<std::byte> partials;   // shared_groups * k values, this rank's partials ...
  std::byte* own = nullptr;          // ... at ws.partials.data(), or where prepare put them
  std::vector<std::byte> send, recv;
  /// Set by a complete call: the combined value of shared group r is row r of `combine`
  /// folded over `blocks`. The handle folds and scatters in one pass (Kernels::
  /// combine_scatter), so the combined values never land in a buffer of their own.
  const CombineMap* combine = nullptr;
  std::vector<MPI_Request> requests;  // the call's requests, in an order of the method's
  std::vector<const std::byte*> blocks;
  std::unique_ptr<MethodScratch> scratch;  // made by `exchange` (Exchange::make_scratch)

  /// The scratch as the type S that `exchange` made: for that method's own hooks only.
  template <class S>
  S& scratch_as() noexcept {
    return static_cast<S&>(*scratch);
  }
  template <class S>
  const S& scratch_as() const noexcept {
    return static_cast<const S&>(*scratch);
  }

  std::size_t bytes() const noexcept {
    return partials.capacity() + send.capacity() + recv.capacity() + requests.capacity() * sizeof(MPI_Request) +
           (scratch ? scratch->bytes() : 0);
  }
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

  /// Prepares a call (ws.info and ws.kernels set), before the handle gathers its partials
  /// (`bytes` of them): returns where to gather them. Binds `ws` to this method on its
  /// first call. Throws Error(state) if the method gave up on earlier calls. Always
  /// followed by start.
  std::byte* prepare(Workspace& ws, std::size_t bytes);
  /// Starts the call prepared: ws.own holds this rank's partials. When ws.kernels is nullptr
  /// this rank takes part without data (its headers say own_failure) so that no peer waits.
  void start(Workspace& ws);
  /// Finishes the call (making progress on every call in flight on this rank meanwhile),
  /// then ws.combine and ws.blocks give the combined values (unless this rank's own
  /// arguments were bad).
  /// Throws Error(mismatch) if a peer's call differs, Error(remote) if a peer failed.
  /// If `watch` throws, the method gives up on all its calls in flight (see abandon) and
  /// finish rethrows.
  void finish(Workspace& ws, WaitWatch* watch = nullptr);
  /// Whose list of calls in flight this thread's calls go on: at MPI_THREAD_MULTIPLE the
  /// thread's own, named by a number no other thread of the process ever gets (1, 2, ...,
  /// given on the thread's first call; not an address, which a thread started after this
  /// one exits may reuse); below it the process's, 0. A call is waited for, and more calls
  /// of its handle are started, only by callers of the same owner
  /// (HandleState::check_thread), so the calls of a thread that exited with calls in flight
  /// are refused to every other thread.
  static std::uint64_t progress_owner() noexcept;

  /// The ranks whose messages the call still waits for; empty for a collective of all ranks.
  virtual std::vector<int> awaited(const Workspace& ws) const = 0;

  virtual std::vector<StageStats> stages() const = 0;
  virtual std::vector<MessageStats> messages() const = 0;
  virtual int neighbors() const noexcept = 0;
  virtual std::size_t bytes() const noexcept = 0;  // memory of the method's own plan
  /// Bytes of the method's own plan that one call of one double (k = 1) reads on this rank,
  /// each array once (Stats::call_index_bytes): its pack lists and its fold map.
  virtual std::size_t call_bytes() const noexcept = 0;

  /// Makes progress on every call in flight on this thread, without blocking.
  static void progress_all() noexcept;
  /// Whether a call started on this thread still waits for messages or a collective.
  static bool any_in_flight() noexcept;

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
  /// A method that posts here cancels what it posted if it throws here or in do_start.
  virtual std::byte* do_prepare(Workspace& ws, std::size_t bytes);
  /// The method's part of start: post what can be posted now.
  virtual void do_start(Workspace& ws) = 0;
  /// The method's part of finish: does what can be done without waiting; true once the
  /// call is complete (ws.combine and ws.blocks set). Throws on failure; the engine records
  /// the error for finish.
  virtual bool do_progress(Workspace& ws) = 0;
  /// The method's own scratch for a workspace it is to serve (Workspace::scratch_as), made
  /// once per workspace. Every method makes one (a plain MethodScratch if it needs nothing
  /// of its own), so scratch_as never meets an empty workspace.
  virtual std::unique_ptr<MethodScratch> make_scratch() const = 0;
  /// Lets go of the call's requests (they complete, or not, without us): frees them all
  /// by default.
  virtual void release_requests(Workspace& ws) noexcept;

private:
  void wait_watched(Workspace& ws, WaitWatch& watch);
  /// Every call in flight fails with `why` (the one being waited for gets the watch's own
  /// error), and every later start throws Error(state): the messages of the calls given up
  /// on may still arrive and would be taken for a later call's.
  void abandon(const std::string& why) noexcept;
  void bind(Workspace& ws);        // ws serves this method from now on, with scratch of its own
  void progress_calls() noexcept;  // this method's calls, in start order, while they complete
  void unlink_busy() noexcept;
  /// At the exit of a thread with calls in flight: its list goes with it, so its methods
  /// leave it; no thread can advance their calls, so (MPI still running) the methods give
  /// up on them (abandon). The handle keeps them counted as in flight, and refuses every
  /// other thread's wait and call (HandleState::check_thread).
  friend struct ThreadExit;
  static void leave_thread_list(Exchange* first) noexcept;

  std::string abandoned_;  // why the calls were given up on; empty while the method works
  Workspace* first_in_flight_ = nullptr;
  Workspace* last_in_flight_ = nullptr;
  Exchange* next_busy_ = nullptr;  // the thread's methods with calls in flight
  Exchange* prev_busy_ = nullptr;
  Exchange** busy_list_ = nullptr;  // the head of that list, while calls are in flight
};

}  // namespace gsr::detail
