// mpi/comm.cpp — see comm.hpp.
#include "mpi/comm.hpp"

#include "mpi/checked.hpp"
#include "mpi/polled.hpp"
#include "mpi/seam.hpp"

#include <memory>
#include <new>
#include <string>

namespace gsr::detail {

OwnedComm OwnedComm::duplicate(MPI_Comm user, double timeout, std::exception_ptr& failure) {
  // Polled (dup_polled): a rank that gave up on the step before this one (GSR_TIMEOUT) never
  // comes, and the others must not wait for it forever.
  const MPI_Comm made = dup_polled(user, timeout);
  OwnedComm owned;
  owned.comm_ = made;
  // From here on a failure is this rank's alone: every rank has the duplicate.
  try {
    seam::reached(seam::Point::duplicate);
    GSR_MPI_CHECK(MPI_Comm_set_errhandler(owned.comm_, MPI_ERRORS_RETURN));
  } catch (...) {
    failure = std::current_exception();
  }
  return owned;
}

OwnedComm::OwnedComm(MPI_Comm user, double timeout) {
  std::exception_ptr failure;
  OwnedComm made = duplicate(user, timeout, failure);  // freed on every rank if the agreement throws
  ErrorCode code = ErrorCode::ok;
  std::string message;
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const Error& e) {
      code = e.code();
      message = e.what();
    } catch (const std::bad_alloc&) {
      code = ErrorCode::internal;
      message = "gsr: out of memory taking over a duplicate of the communicator";
    } catch (...) {
      code = ErrorCode::internal;
      message = "gsr: taking over a duplicate of the communicator failed";
    }
  }
  agree_on_errors(user, code, message, timeout);
  comm_ = made.comm_;
  made.comm_ = MPI_COMM_NULL;
}

OwnedComm OwnedComm::adopt(MPI_Comm created) {
  OwnedComm owned;
  owned.comm_ = created;
  GSR_MPI_CHECK(MPI_Comm_set_errhandler(owned.comm_, MPI_ERRORS_RETURN));
  return owned;
}

OwnedComm::~OwnedComm() { release(); }

OwnedComm& OwnedComm::operator=(OwnedComm&& other) noexcept {
  if (this != &other) {
    release();
    comm_ = other.comm_;
    other.comm_ = MPI_COMM_NULL;
  }
  return *this;
}

void OwnedComm::release() noexcept {
  // A handle that outlives MPI_Finalize (a static, say) has nothing left to free.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
  comm_ = MPI_COMM_NULL;
}

int OwnedComm::rank() const { return comm_rank(comm_); }
int OwnedComm::size() const { return comm_size(comm_); }

int OwnedComm::ranks_on_node(double timeout) const { return ranks_on_node_polled(comm_, timeout); }

}  // namespace gsr::detail
