// mpi/checked.cpp — see checked.hpp.
#include "mpi/checked.hpp"

#include <vector>

namespace gsr::detail {

void throw_mpi_error(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(ErrorCode::mpi, std::string("gsr: MPI call failed: ") + call + ": " + text +
                                  " (" + file + ":" + std::to_string(line) + ")");
}

void require_communicator(MPI_Comm comm, const char* what) {
  if (comm == MPI_COMM_NULL)
    throw Error(ErrorCode::invalid_argument, std::string("gsr: ") + what + ": the communicator (comm) is MPI_COMM_NULL");
}

int comm_rank(MPI_Comm comm) {
  int r = 0;
  GSR_MPI_CHECK(MPI_Comm_rank(comm, &r));
  return r;
}

int comm_size(MPI_Comm comm) {
  int p = 0;
  GSR_MPI_CHECK(MPI_Comm_size(comm, &p));
  return p;
}

void agree_on_errors(MPI_Comm comm, ErrorCode local_code, const std::string& local_message, Report report) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  // The lowest failing rank speaks for all; `size` means nobody failed.
  int mine = local_code == ErrorCode::ok ? size : rank;
  int first = size;
  GSR_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return;

  int header[2] = {static_cast<int>(local_code), first == rank ? static_cast<int>(local_message.size()) : 0};
  GSR_MPI_CHECK(MPI_Bcast(header, 2, MPI_INT, first, comm));
  std::string text(local_message);
  text.resize(static_cast<std::size_t>(header[1]));
  GSR_MPI_CHECK(MPI_Bcast(text.data(), header[1], MPI_CHAR, first, comm));

  if (local_code != ErrorCode::ok) throw Error(local_code, local_message);
  if (report == Report::same_everywhere) throw Error(static_cast<ErrorCode>(header[0]), text);
  throw Error(ErrorCode::remote, "gsr: rank " + std::to_string(first) + " failed: " + text);
}

}  // namespace gsr::detail
