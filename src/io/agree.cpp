// io/agree.cpp — the error agreement of collective mesh I/O.
#include "io/agree.hpp"

#include <vector>

namespace gsr::io {

void agree(MPI_Comm comm, ErrorCode local_code, const std::string& local_message) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int candidate = local_code == ErrorCode::ok ? size : rank;
  int first_failing = size;
  if (MPI_Allreduce(&candidate, &first_failing, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    throw Error(ErrorCode::mpi, "gsr: MPI_Allreduce failed while agreeing on a mesh I/O error");
  if (first_failing == size) return;

  // The failing rank sends its code and message to everyone.
  int header[2] = {static_cast<int>(local_code), static_cast<int>(local_message.size())};
  MPI_Bcast(header, 2, MPI_INT, first_failing, comm);
  std::vector<char> text(local_message.begin(), local_message.end());
  text.resize(static_cast<std::size_t>(header[1]));
  if (header[1] > 0) MPI_Bcast(text.data(), header[1], MPI_CHAR, first_failing, comm);
  throw Error(static_cast<ErrorCode>(header[0]), std::string(text.begin(), text.end()));
}

}  // namespace gsr::io
