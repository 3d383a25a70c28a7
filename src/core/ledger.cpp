// core/ledger.cpp — see ledger.hpp. The lists of live and retired ledgers are shared by the
// threads that set up and free handles: `lists_lock` guards them (a handle's own ledger is
// its thread's alone).
#include "core/ledger.hpp"

#include "mpi/checked.hpp"

#include <gsr/error.hpp>

#include <algorithm>
#include <cstdio>
#include <list>
#include <mutex>
#include <string>

namespace gsr::detail {

namespace {

constexpr int notice_tag = 60;  // below the call tags (exchange/protocol.hpp), unused by setup

/// A freed handle whose neighbours have not all been heard from yet.
struct Retired {
  CallLedger ledger;
  OwnedComm comm;           // empty for a live handle's notices sent at MPI_Finalize
  std::uint64_t count = 0;  // what the notices say (their send buffer)
  std::vector<MPI_Request> sends;
};

std::mutex lists_lock;  // live_ledgers(), retired(), the finalize hook

std::vector<CallLedger*>& live_ledgers() {
  static std::vector<CallLedger*> ledgers;
  return ledgers;
}

std::list<Retired>& retired() {  // a list: the send buffers must not move
  static std::list<Retired> handles;
  return handles;
}

int my_rank(MPI_Comm comm) {
  int rank = -1;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

void report_difference(const CallLedger& ledger, const FreeNotice& notice) {
  const unsigned long long mine = ledger.calls, theirs = notice.calls;
  std::fprintf(stderr,
               "gsr: rank %d: handle #%llu: this rank made %llu calls on it, rank %d made %llu; the calls did not "
               "pair up from call #%llu on (a rank skipped or added a call)\n",
               my_rank(ledger.comm), static_cast<unsigned long long>(ledger.serial), mine, notice.rank, theirs,
               std::min(mine, theirs) + 1);
  std::fflush(stderr);
}

bool heard_from(const CallLedger& ledger, int rank) {
  return std::any_of(ledger.heard.begin(), ledger.heard.end(), [&](const FreeNotice& n) { return n.rank == rank; });
}

void send_notices(Retired& r) {
  r.count = r.ledger.calls;
  r.sends.assign(r.ledger.neighbors.size(), MPI_REQUEST_NULL);
  for (std::size_t j = 0; j < r.ledger.neighbors.size(); ++j)
    MPI_Isend(&r.count, 1, MPI_UINT64_T, r.ledger.neighbors[j], notice_tag, r.ledger.comm, &r.sends[j]);
}

/// Takes in what has arrived and reports what differs; true once every neighbour has been
/// heard from and every notice sent has been taken.
bool settle(Retired& r) {
  const std::size_t before = r.ledger.heard.size();
  r.ledger.take_in_notices();
  for (std::size_t i = before; i < r.ledger.heard.size(); ++i)
    if (r.ledger.heard[i].calls != r.ledger.calls) report_difference(r.ledger, r.ledger.heard[i]);
  for (int rank : r.ledger.neighbors)
    if (!heard_from(r.ledger, rank)) return false;
  int sent = 0;
  MPI_Testall(static_cast<int>(r.sends.size()), r.sends.data(), &sent, MPI_STATUSES_IGNORE);
  return sent != 0;
}

void poll_retired() {
  auto& handles = retired();
  for (auto it = handles.begin(); it != handles.end();) it = settle(*it) ? handles.erase(it) : std::next(it);
}

void report_silent(const Retired& r) {
  for (int rank : r.ledger.neighbors)
    if (!heard_from(r.ledger, rank))
      std::fprintf(stderr,
                   "gsr: rank %d: handle #%llu: rank %d neither freed it nor reached MPI_Finalize within GSR_TIMEOUT "
                   "= %g s (is it still in a call of that handle?)\n",
                   my_rank(r.ledger.comm), static_cast<unsigned long long>(r.ledger.serial), rank, r.ledger.timeout);
  std::fflush(stderr);
}

void give_up(Retired& r) {
  report_silent(r);
  for (MPI_Request& send : r.sends)
    if (send != MPI_REQUEST_NULL) MPI_Request_free(&send);
}

/// At MPI_Finalize: live handles send their notices too, then every rank waits for its
/// neighbours' (up to the handles' timeouts) so that nothing is left in flight.
void settle_at_finalize() {
  for (CallLedger* ledger : live_ledgers()) {
    Retired& r = retired().emplace_back();
    r.ledger = *ledger;
    send_notices(r);
  }
  live_ledgers().clear();
  const double begin = MPI_Wtime();
  auto& handles = retired();
  while (!handles.empty()) {
    const double waited = MPI_Wtime() - begin;
    for (auto it = handles.begin(); it != handles.end();) {
      bool done = settle(*it);
      if (!done && it->ledger.timeout > 0 && waited > it->ledger.timeout) {
        give_up(*it);
        done = true;
      }
      it = done ? handles.erase(it) : std::next(it);
    }
  }
}

int on_finalize(MPI_Comm, int, void*, void*) {
  const std::lock_guard lock(lists_lock);
  settle_at_finalize();
  return MPI_SUCCESS;
}

void hook_finalize() {
  static int keyval = MPI_KEYVAL_INVALID;
  if (keyval != MPI_KEYVAL_INVALID) return;
  GSR_MPI_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize, &keyval, nullptr));
  GSR_MPI_CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr));
}

}  // namespace

void CallLedger::take_in_notices() {
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, notice_tag, comm, &arrived, &status) != MPI_SUCCESS || !arrived) return;
    FreeNotice notice{status.MPI_SOURCE, 0};
    MPI_Recv(&notice.calls, 1, MPI_UINT64_T, status.MPI_SOURCE, notice_tag, comm, MPI_STATUS_IGNORE);
    heard.push_back(notice);
  }
}

std::optional<FreeNotice> CallLedger::listen(std::uint64_t calls_needed) {
  const std::size_t before = heard.size();
  take_in_notices();
  for (std::size_t i = before; i < heard.size(); ++i)
    if (heard[i].calls < calls_needed) return heard[i];
  return std::nullopt;
}

void track(CallLedger* ledger) {
  const std::lock_guard lock(lists_lock);
  hook_finalize();
  poll_retired();
  live_ledgers().push_back(ledger);
}

void untrack(CallLedger* ledger) noexcept {
  const std::lock_guard lock(lists_lock);
  auto& ledgers = live_ledgers();
  ledgers.erase(std::remove(ledgers.begin(), ledgers.end(), ledger), ledgers.end());
}

void retire(CallLedger ledger, OwnedComm comm) noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized || comm.get() == MPI_COMM_NULL) return;  // MPI_Finalize sent this handle's notices
  try {
    for (const FreeNotice& notice : ledger.heard)
      if (notice.calls != ledger.calls) report_difference(ledger, notice);
    const std::lock_guard lock(lists_lock);
    Retired& r = retired().emplace_back();
    r.ledger = std::move(ledger);
    r.comm = std::move(comm);
    send_notices(r);
    poll_retired();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gsr: freeing a handle: %s\n", e.what());
  }
}

}  // namespace gsr::detail
