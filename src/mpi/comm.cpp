// mpi/comm.cpp — see comm.hpp.
#include "mpi/comm.hpp"

#include "mpi/checked.hpp"

namespace gsr::detail {

OwnedComm::OwnedComm(MPI_Comm user) {
  GSR_MPI_CHECK(MPI_Comm_dup(user, &comm_));
  GSR_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
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

int OwnedComm::ranks_on_node() const {
  MPI_Comm node = MPI_COMM_NULL;
  GSR_MPI_CHECK(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  const OwnedComm owned = adopt(node);  // freed on return, or if the size throws
  return owned.size();
}

}  // namespace gsr::detail
