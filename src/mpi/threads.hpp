// mpi/threads.hpp — what makes a call from a second thread an error instead of a race
// (docs/threads.md). MPI decides what gsr may allow: below MPI_THREAD_MULTIPLE only one
// thread may be inside MPI at a time, so only one may be inside gsr; at MPI_THREAD_MULTIPLE
// threads may call gsr at once, each on its own handles and communicators, and a handle (or
// the HDF5 library, which is not thread-safe) is used by one thread at a time.
//
// Each public entry point holds a ThreadEntry for its length. A call that would break the
// rule above is refused with a state error before it does anything; the call already
// inside goes on untouched. The check is a load and a store of an uncontended flag.
#pragma once

#include <atomic>

namespace gsr::detail {

/// MPI's thread level (MPI_Query_thread), asked once MPI is initialized: it cannot change
/// after MPI_Init_thread. Before MPI_Init, MPI_THREAD_SINGLE.
int mpi_thread_level() noexcept;

/// Set while a thread is inside gsr's HDF5 calls (mesh files): HDF5 is not thread-safe.
extern std::atomic<bool> hdf5_in_use;

namespace thread_entry {
// The state ThreadEntry's inline part reads on every call; threads.cpp defines it.
// initial-exec: a plain %fs-relative access, not a call to __tls_get_addr.
extern thread_local constinit int depth __attribute__((tls_model("initial-exec")));  // nesting on this thread
extern std::atomic<int> level;        // the cached thread level; -1 until MPI is initialized
extern std::atomic<bool> inside_gsr;  // below MPI_THREAD_MULTIPLE: a thread is inside gsr
/// The rest of an entry: the level not cached yet, HDF5's flag, or a refusal (throws).
std::atomic<bool>* enter_slowly(std::atomic<bool>* exclusive);
}  // namespace thread_entry

/// Marks this thread as inside gsr while it lives. Below MPI_THREAD_MULTIPLE, one thread at
/// a time may be inside gsr; at MPI_THREAD_MULTIPLE, one thread at a time may hold
/// `exclusive` (a handle's flag, the HDF5 flag; none for a call that owns nothing shared).
/// A call made from inside another (a callback of the caller's) nests without a check.
///
/// Inline, as every gather-scatter call makes one: the usual entry is a thread-local
/// increment, a load of the cached level, and a load (acquire: what the last holder wrote
/// under the flag is seen) and a store of the flag. The check of
/// the gather-scatter flags is therefore not atomic: two threads entering in the very same
/// instant could both pass. It catches a thread arriving while another is inside, which is
/// what goes wrong in practice; HDF5's flag, taken rarely, is exact (an atomic exchange).
class ThreadEntry {
public:
  /// Throws Error(state) if another thread holds what this call needs.
  explicit ThreadEntry(std::atomic<bool>* exclusive) {
    using namespace thread_entry;
    if (depth > 0) {  // inside gsr already, on this thread: what it holds covers this call
      ++depth;
      return;
    }
    const int known = level.load(std::memory_order_relaxed);
    std::atomic<bool>* const flag = known < 0 ? nullptr : known < multiple ? &inside_gsr : exclusive;
    if (known < 0 || flag == &hdf5_in_use || (flag && flag->load(std::memory_order_acquire))) {
      held_ = enter_slowly(exclusive);
    } else if (flag) {
      flag->store(true, std::memory_order_relaxed);
      held_ = flag;
    }
    depth = 1;
  }
  ~ThreadEntry() {
    --thread_entry::depth;
    if (held_) held_->store(false, std::memory_order_release);
  }
  ThreadEntry(const ThreadEntry&) = delete;
  ThreadEntry& operator=(const ThreadEntry&) = delete;

private:
  static constexpr int multiple = 3;  // MPI_THREAD_MULTIPLE, checked in threads.cpp
  std::atomic<bool>* held_ = nullptr;
};

}  // namespace gsr::detail
