// core/ledger.hpp — how ranks find out that their calls on a handle did not pair up when
// no message could show it (a rank skipped a call that looked like the next one). Each
// rank counts its calls per handle. When it frees the handle, or reaches MPI_Finalize with
// the handle still live, it tells the ranks it shares ids with how many calls it made
// (a "free notice"), without blocking. A rank still waiting in a call of that handle
// reads the notice and fails the call at once (HandleState::waiting); a rank that frees
// later compares the counts and reports a difference on stderr, the only place left to
// report it. A freed handle's communicator is kept until every neighbour's notice has
// arrived, and at MPI_Finalize every rank waits (up to GSR_TIMEOUT) for the rest.
#pragma once

#include "mpi/checked.hpp"
#include "mpi/comm.hpp"

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace gsr::detail {

struct FreeNotice {
  int rank = 0;
  std::uint64_t calls = 0;
};

/// One handle's calls on this rank, and what its neighbours said about theirs.
struct CallLedger {
  MPI_Comm comm = MPI_COMM_NULL;  // the handle's own (owned by the handle until it is freed)
  std::uint64_t serial = 0;       // handles set up on this rank so far, this one included
  std::uint64_t calls = 0;        // calls started on this rank
  std::vector<int> neighbors;     // ranks that share ids with this one
  std::vector<FreeNotice> heard;  // notices received so far
  double timeout = 0;             // seconds; 0: wait without limit

  /// Receives every notice that has arrived (into `heard`).
  void take_in_notices();

  /// Takes in the notices that have arrived and returns the first new one saying its sender
  /// made fewer than `calls_needed` calls: that rank will never join this rank's current call.
  std::optional<FreeNotice> listen(std::uint64_t calls_needed);
};

/// Registers a live handle's ledger (so MPI_Finalize can send its notices), or removes it.
void track(CallLedger* ledger);
void untrack(CallLedger* ledger) noexcept;

/// The handle is being freed: sends this rank's notices and keeps `comm` until the
/// neighbours' notices have arrived, reporting any count that differs from this rank's.
void retire(CallLedger ledger, OwnedComm comm) noexcept;

}  // namespace gsr::detail
