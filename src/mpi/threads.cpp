// mpi/threads.cpp — see threads.hpp.
#include "mpi/threads.hpp"

#include <gsr/error.hpp>

#include <mpi.h>

#include <string>

namespace gsr::detail {

std::atomic<bool> hdf5_in_use{false};

namespace thread_entry {
thread_local constinit int depth __attribute__((tls_model("initial-exec"))) = 0;
std::atomic<int> level{-1};
std::atomic<bool> inside_gsr{false};
}  // namespace thread_entry

namespace {

static_assert(MPI_THREAD_MULTIPLE == 3 && MPI_THREAD_SERIALIZED < 3, "ThreadEntry::multiple");

const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

[[noreturn]] void refuse(const std::atomic<bool>* flag, int level) {
  if (flag == &thread_entry::inside_gsr)
    throw Error(ErrorCode::state, std::string("gsr: called from a second thread while another thread is inside gsr; "
                                              "MPI was initialized with ") +
                                      level_name(level) +
                                      ", which allows one thread in MPI at a time (with MPI_THREAD_MULTIPLE "
                                      "threads may call gsr at once, each with its own handles)");
  if (flag == &hdf5_in_use)
    throw Error(ErrorCode::state,
                "gsr: another thread is reading or writing a mesh file; HDF5 is not thread-safe, "
                "so mesh files are read and written one at a time");
  throw Error(ErrorCode::state,
              "gsr: the handle is in use by another thread; a handle is used by one thread at a "
              "time (give each thread its own)");
}

}  // namespace

int mpi_thread_level() noexcept {
  int level = thread_entry::level.load(std::memory_order_relaxed);
  if (level >= 0) return level;
  int initialized = 0;
  MPI_Initialized(&initialized);  // callable from any thread, before MPI_Init too
  if (!initialized) return MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  thread_entry::level.store(level, std::memory_order_relaxed);
  return level;
}

std::atomic<bool>* thread_entry::enter_slowly(std::atomic<bool>* exclusive) {
  const int now = mpi_thread_level();
  std::atomic<bool>* const flag = now < MPI_THREAD_MULTIPLE ? &inside_gsr : exclusive;
  if (!flag) return nullptr;
  const bool taken =
      flag == &hdf5_in_use ? flag->exchange(true, std::memory_order_acquire) : flag->load(std::memory_order_acquire);
  if (taken) refuse(flag, now);
  flag->store(true, std::memory_order_relaxed);
  return flag;
}

}  // namespace gsr::detail
