// core/shared_steps.cpp — collective steps of the public API that the C and Fortran shims
// build on (comm_init's duplicate, their argument agreements), watched by GSR_TIMEOUT like
// every other collective (mpi/polled.hpp).
#include <gsr/handle.hpp>

#include "config/config.hpp"
#include "mpi/polled.hpp"

namespace gsr {

MPI_Comm duplicate_communicator(MPI_Comm comm) {
  // GSR_TIMEOUT, or the default if it cannot be read (the setup that follows reports that).
  return detail::dup_polled(comm, detail::timeout_or_default({}));
}

int agree_max(int value, MPI_Comm comm) {
  detail::allreduce_polled(&value, 1, MPI_INT, MPI_MAX, comm, detail::timeout_or_default({}));
  return value;
}

}  // namespace gsr
