/* A rank that ends with exit() while gs handles are live and MPI is not finalized — as a
 * Fortran runtime error ends a Nek5000 run — must end at once, like a program linked to
 * gslib: the job then ends (the launcher stops the other ranks) instead of waiting in
 * exit-time clean-up. Rank 0 exits with status 3 after a setup and one call; the others
 * wait in an MPI_Comm_dup rank 0 never reaches. */
#include <gsr/gs.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  struct comm c;
  comm_init(&c, MPI_COMM_WORLD);
  slong ids[3] = {1, 2, 10 + (slong)c.id};
  double u[3] = {1, 2, 3};
  struct gs_data *h = gs_setup(ids, 3, &c, 0, gs_pairwise, 0);
  gs(u, gs_double, gs_add, 0, h, NULL);
  if (c.id == 0) {
    printf("exit_with_live_handle: rank 0 exits with a live handle\n");
    fflush(stdout);
    exit(3);
  }
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  printf("exit_with_live_handle: FAIL: MPI_Comm_dup completed without rank 0\n");
  MPI_Finalize();
  return 0;
}
