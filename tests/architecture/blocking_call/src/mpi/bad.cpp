// A fixture for check_blocking_mpi.py: one blocking collective that no helper watches. The
// comment's MPI_Barrier(comm) and the string's "MPI_Bcast(" must not count.
#include <mpi.h>

int total(int value, MPI_Comm comm) {
  const char* text = "MPI_Bcast(";
  (void)text;
  int sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, comm);
  return sum;
}
