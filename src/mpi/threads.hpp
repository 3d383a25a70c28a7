// mpi/threads.hpp — what makes a call from a second thread an error instead of a race
// (docs/threads.md). MPI decides what gsr may allow: below MPI_THREAD_MULTIPLE only one
// thread may be inside MPI at a time, so only one may be inside gsr; at MPI_THREAD_MULTIPLE
// threads may call gsr at once, each on its own handles and communicators, and a handle (or
// the HDF5 library, which is not thread-safe) is used by one thread at a time.
//
// Each public entry point holds a ThreadEntry for its length. A call that would break the
// rule above is refused with a state error before it does anything; the call already
// inside goes on untouched. The check costs one atomic exchange on an uncontended flag.
#pragma once

#include <atomic>

namespace gsr::detail {

/// MPI's thread level (MPI_Query_thread), asked once MPI is initialized: it cannot change
/// after MPI_Init_thread. Before MPI_Init, MPI_THREAD_SINGLE.
int mpi_thread_level() noexcept;

/// Marks this thread as inside gsr while it lives. Below MPI_THREAD_MULTIPLE, one thread at
/// a time may be inside gsr; at MPI_THREAD_MULTIPLE, one thread at a time may hold
/// `exclusive` (a handle's flag, the HDF5 flag; none for a call that owns nothing shared).
/// A call made from inside another (a callback of the caller's) nests without a check.
class ThreadEntry {
 public:
  /// Throws Error(state) if another thread holds what this call needs.
  explicit ThreadEntry(std::atomic<bool>* exclusive);
  ~ThreadEntry();
  ThreadEntry(const ThreadEntry&) = delete;
  ThreadEntry& operator=(const ThreadEntry&) = delete;

 private:
  std::atomic<bool>* held_ = nullptr;
};

/// Set while a thread is inside gsr's HDF5 calls (mesh files): HDF5 is not thread-safe.
extern std::atomic<bool> hdf5_in_use;

}  // namespace gsr::detail
