// mpi/messages.cpp — see messages.hpp.
#include "mpi/messages.hpp"

#include <string>

namespace gsr::detail {

ProbedMessage probe(MPI_Comm comm, int source, int tag) {
  ProbedMessage message;
  MPI_Status status;
  GSR_MPI_CHECK(MPI_Mprobe(source, tag, comm, &message.handle, &status));
  MPI_Count count = 0;
  GSR_MPI_CHECK(MPI_Get_elements_x(&status, MPI_BYTE, &count));
  message.bytes = static_cast<std::size_t>(count);
  return message;
}

std::optional<ProbedMessage> try_probe(MPI_Comm comm, int source, int tag) {
  ProbedMessage message;
  MPI_Status status;
  int found = 0;
  GSR_MPI_CHECK(MPI_Improbe(source, tag, comm, &found, &message.handle, &status));
  if (!found) return std::nullopt;
  MPI_Count count = 0;
  GSR_MPI_CHECK(MPI_Get_elements_x(&status, MPI_BYTE, &count));
  message.bytes = static_cast<std::size_t>(count);
  return message;
}

void receive(ProbedMessage& message, void* into) {
  GSR_MPI_CHECK(MPI_Mrecv(into, mpi_count(message.bytes, "probed message"), MPI_BYTE, &message.handle,
                          MPI_STATUS_IGNORE));
}

void complete_all(std::vector<MPI_Request>& requests, const char* what) {
  if (requests.empty()) return;
  const int rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) throw_mpi_error(rc, what, __FILE__, __LINE__);
}

}  // namespace gsr::detail

namespace gsr::detail {

bool test_all(std::vector<MPI_Request>& requests, const char* what) {
  if (requests.empty()) return true;
  int done = 0;
  const int rc = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) throw_mpi_error(rc, what, __FILE__, __LINE__);
  return done != 0;
}

}  // namespace gsr::detail
