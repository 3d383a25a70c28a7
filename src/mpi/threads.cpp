// mpi/threads.cpp — see threads.hpp.
#include "mpi/threads.hpp"

#include <gsr/error.hpp>

#include <mpi.h>

#include <string>

namespace gsr::detail {

std::atomic<bool> hdf5_in_use{false};

namespace {

std::atomic<int> cached_level{-1};        // MPI_Query_thread's answer, once MPI is initialized
std::atomic<bool> inside_gsr{false};      // below MPI_THREAD_MULTIPLE: a thread is inside gsr
// How deep this thread is in gsr's entry points. initial-exec: a plain load, not a call to
// __tls_get_addr, on every gather-scatter call.
thread_local constinit int depth __attribute__((tls_model("initial-exec"))) = 0;

const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

}  // namespace

int mpi_thread_level() noexcept {
  int level = cached_level.load(std::memory_order_relaxed);
  if (level >= 0) return level;
  int initialized = 0;
  MPI_Initialized(&initialized);  // callable from any thread, before MPI_Init too
  if (!initialized) return MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  cached_level.store(level, std::memory_order_relaxed);
  return level;
}

ThreadEntry::ThreadEntry(std::atomic<bool>* exclusive) {
  if (depth > 0) {  // inside gsr already, on this thread: what it holds covers this call
    ++depth;
    return;
  }
  const int level = mpi_thread_level();
  std::atomic<bool>* const flag = level < MPI_THREAD_MULTIPLE ? &inside_gsr : exclusive;
  if (flag && flag->exchange(true, std::memory_order_acquire)) {
    if (flag == &inside_gsr)
      throw Error(ErrorCode::state,
                  std::string("gsr: called from a second thread while another thread is inside gsr; MPI was "
                              "initialized with ") +
                      level_name(level) +
                      ", which allows one thread in MPI at a time (with MPI_THREAD_MULTIPLE threads may call "
                      "gsr at once, each with its own handles)");
    if (flag == &hdf5_in_use)
      throw Error(ErrorCode::state, "gsr: another thread is reading or writing a mesh file; HDF5 is not thread-safe, "
                                    "so mesh files are read and written one at a time");
    throw Error(ErrorCode::state, "gsr: the handle is in use by another thread; a handle is used by one thread at a "
                                  "time (give each thread its own)");
  }
  held_ = flag;
  depth = 1;
}

ThreadEntry::~ThreadEntry() {
  --depth;
  if (held_) held_->store(false, std::memory_order_release);
}

}  // namespace gsr::detail
