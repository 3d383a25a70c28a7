// exchange/progress.cpp — the progress engine of exchange.hpp: each method keeps its calls
// in flight in start order (an intrusive list through Workspace), and a list of the methods
// that have calls in flight (an intrusive list through Exchange): at MPI_THREAD_MULTIPLE one
// list per thread, of the calls it started, on which it alone makes progress, so threads with
// handles of their own never touch each other's lists; below it one list for the process,
// as only one thread at a time is inside gsr and a call may be started on one thread and
// waited for on another. Nothing here allocates but giving up on calls (abandon).
#include "exchange/exchange.hpp"

#include "mpi/checked.hpp"
#include "mpi/keeper.hpp"
#include "mpi/threads.hpp"

#include <atomic>
#include <cstdint>
#include <string>

namespace gsr::detail {

namespace {
// Heads of the lists of methods with calls in flight: this thread's (MPI_THREAD_MULTIPLE;
// initial-exec: a plain load, not a call to __tls_get_addr) and the process's (below).
thread_local constinit Exchange* thread_busy_methods __attribute__((tls_model("initial-exec"))) = nullptr;
constinit Exchange* process_busy_methods = nullptr;

// The thread's number (Exchange::progress_owner): 0 until its first call at
// MPI_THREAD_MULTIPLE; then 1, 2, ... in the order threads first call, never reused, unlike
// the address of a thread_local, which a thread started after this one exits may get.
thread_local constinit std::uint64_t thread_number __attribute__((tls_model("initial-exec"))) = 0;
constinit std::atomic<std::uint64_t> threads_numbered{0};
}  // namespace

// Constructed on a thread's first call at MPI_THREAD_MULTIPLE; its destruction, at the
// thread's exit, gives up on the calls the thread left in flight and takes their methods off
// its list, whose head goes with the thread (a method freed later would otherwise write to
// it through busy_list_, and free buffers MPI may still fill).
struct ThreadExit {
  bool armed = false;
  ~ThreadExit() {
    if (armed) Exchange::leave_thread_list(thread_busy_methods);
    thread_busy_methods = nullptr;
  }
};

namespace {
thread_local ThreadExit thread_exit;

[[gnu::noinline, gnu::cold]] std::uint64_t number_this_thread() noexcept {
  thread_exit.armed = true;
  thread_number = threads_numbered.fetch_add(1, std::memory_order_relaxed) + 1;
  return thread_number;
}

// The list this thread's calls go on. The level is cached by the ThreadEntry every call
// holds before it gets here.
Exchange*& busy_methods() noexcept {
  return thread_entry::level.load(std::memory_order_relaxed) >= MPI_THREAD_MULTIPLE ? thread_busy_methods
                                                                                    : process_busy_methods;
}

/// What MPI may still touch of a call given up on.
struct Remains {
  std::vector<std::byte> send, recv, partials;
  std::vector<MPI_Request> requests;
  std::unique_ptr<MethodScratch> scratch;
};
}  // namespace

Exchange::~Exchange() { unlink_busy(); }

std::byte* Exchange::do_prepare(Workspace& ws, std::size_t bytes) {
  ws.partials.resize(bytes);
  return ws.partials.data();
}

void Exchange::bind(Workspace& ws) {
  ws.scratch = make_scratch();
  ws.exchange = this;
}

void Exchange::unlink_busy() noexcept {
  if (prev_busy_)
    prev_busy_->next_busy_ = next_busy_;
  else if (busy_list_ && *busy_list_ == this)
    *busy_list_ = next_busy_;
  if (next_busy_) next_busy_->prev_busy_ = prev_busy_;
  next_busy_ = prev_busy_ = nullptr;
  busy_list_ = nullptr;
}

std::uint64_t Exchange::progress_owner() noexcept {
  if (thread_entry::level.load(std::memory_order_relaxed) < MPI_THREAD_MULTIPLE) return 0;
  const std::uint64_t number = thread_number;
  return number != 0 ? number : number_this_thread();
}

void Exchange::leave_thread_list(Exchange* first) noexcept {
  if (!first) return;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);  // both callable from any thread, after MPI_Finalize too
  MPI_Finalized(&finalized);
  for (Exchange* method = first; method;) {
    Exchange* const next = method->next_busy_;
    if (initialized && !finalized) {
      // No thread can advance these calls now: their buffers and requests go to the keeper
      // (MPI may still fill them), and the method makes no more calls.
      method->abandon("gsr: the thread that started this call exited before waiting for it");
    } else {
      method->next_busy_ = method->prev_busy_ = nullptr;
      method->busy_list_ = nullptr;
    }
    method = next;
  }
}

std::byte* Exchange::prepare(Workspace& ws, std::size_t bytes) {
  if (!abandoned_.empty())
    throw Error(ErrorCode::state, ws.info.where() +
                                      "this handle gave up waiting in an earlier call and cannot "
                                      "make more; free it (that call: " +
                                      abandoned_ + ")");
  if (ws.exchange != this) bind(ws);
  return do_prepare(ws, bytes);
}

void Exchange::start(Workspace& ws) {
  ws.done = false;
  ws.error = nullptr;
  ws.next_in_flight = nullptr;
  ws.combine = nullptr;
  Exchange*& busy = busy_methods();
  const bool others_in_flight = busy != nullptr;
  try {
    do_start(ws);
  } catch (...) {
    ws.done = true;
    throw;
  }
  if (last_in_flight_) {
    last_in_flight_->next_in_flight = &ws;
  } else {
    first_in_flight_ = &ws;
    next_busy_ = busy;
    prev_busy_ = nullptr;
    if (busy) busy->prev_busy_ = this;
    busy = this;
    busy_list_ = &busy;
  }
  last_in_flight_ = &ws;
  // Starting a call makes progress on the others in flight; alone, this one has just been
  // started and its wait will make progress on it.
  if (others_in_flight) progress_all();
}

void Exchange::progress_calls() noexcept {
  while (Workspace* ws = first_in_flight_) {
    bool complete = true;
    try {
      complete = do_progress(*ws);
    } catch (...) {
      ws->error = std::current_exception();
    }
    if (!complete) return;
    ws->done = true;
    first_in_flight_ = ws->next_in_flight;
    ws->next_in_flight = nullptr;
    if (!first_in_flight_) {
      last_in_flight_ = nullptr;
      unlink_busy();
    }
  }
}

void Exchange::progress_all() noexcept {
  for (Exchange* method = busy_methods(); method;) {
    Exchange* next = method->next_busy_;  // progress_calls may unlink `method`
    method->progress_calls();
    method = next;
  }
}

bool Exchange::any_in_flight() noexcept { return busy_methods() != nullptr; }

void Exchange::finish(Workspace& ws, WaitWatch* watch) {
  progress_all();
  if (!ws.done && watch) wait_watched(ws, *watch);
  while (!ws.done) progress_all();
  if (ws.error) {
    std::exception_ptr error = ws.error;
    ws.error = nullptr;
    std::rethrow_exception(error);
  }
}

}  // namespace gsr::detail

namespace gsr::detail {

namespace {
constexpr double first_look_seconds = 1e-3;  // a call done within this never sees the watch
constexpr double look_interval_seconds = 1e-2;
constexpr unsigned spins_per_clock_read = 64;
}  // namespace

void Exchange::wait_watched(Workspace& ws, WaitWatch& watch) {
  // The clock is first read after spins_per_clock_read spins: most waits end before that.
  double begin = 0, next_look = 0;
  bool clock_started = false;
  for (unsigned spins = 1; !ws.done; ++spins) {
    progress_all();
    if (ws.done || spins % spins_per_clock_read != 0) continue;
    const double now = MPI_Wtime();
    if (!clock_started) {
      clock_started = true;
      begin = now;
      next_look = begin + first_look_seconds;
    }
    if (now < next_look) continue;
    next_look = now + look_interval_seconds;
    try {
      watch.waiting(ws, now - begin);
    } catch (const std::exception& e) {
      abandon(e.what());
      throw;
    }
  }
}

void Exchange::release_requests(Workspace& ws) noexcept {
  for (MPI_Request& request : ws.requests)
    if (request != MPI_REQUEST_NULL) MPI_Request_free(&request);
}

void Exchange::abandon(const std::string& why) noexcept {
  abandoned_ = why;
  while (Workspace* ws = first_in_flight_) {
    release_requests(*ws);
    // MPI may still fill or read what this call posted (a late rank's message, a collective
    // whose request cannot be freed): its buffers, scratch (a collective's counts) and
    // requests outlive the handle in the keeper. The handle makes no more calls.
    try {
      keep_until_exit(Remains{std::move(ws->send), std::move(ws->recv), std::move(ws->partials),
                              std::move(ws->requests), std::move(ws->scratch)});
    } catch (...) {
      // Out of memory for the keeper's note: the buffers go with the handle after all.
    }
    ws->requests.clear();
    try {
      ws->error =
          std::make_exception_ptr(Error(ErrorCode::state, ws->info.where() +
                                                              "given up on, with an earlier call of this handle that "
                                                              "gave up waiting (" +
                                                              why + ")"));
    } catch (...) {
      ws->error = std::current_exception();
    }
    ws->done = true;
    first_in_flight_ = ws->next_in_flight;
    ws->next_in_flight = nullptr;
  }
  last_in_flight_ = nullptr;
  unlink_busy();
}

}  // namespace gsr::detail
