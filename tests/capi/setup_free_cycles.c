/* gs_setup / gs / gs_free, many times over: gs_free must give back everything a handle
 * holds. The count (argument 1, default 2500) is above MPICH's number of communicator
 * context ids (2048), so a handle whose duplicated communicator outlived gs_free makes a
 * later gs_setup fail. Run under valgrind with a small count, it shows the rest:
 * nothing definitely lost once every handle is freed. */
#include <gsr/gs.h>

#include <stdio.h>
#include <stdlib.h>

/* One handle's life; returns 0 if every call succeeded. */
static int one_cycle(const struct comm *c, int cycle) {
  slong id[3];
  double u[3] = {1.0, 2.0, 3.0};
  struct gs_data *h;
  id[0] = 1;
  id[1] = 2 + cycle % 5;
  id[2] = 100 + (slong)c->id;
  h = gs_setup(id, 3, c, 0, gs_pairwise, 0);
  if (h == NULL) {
    printf("FAIL: rank %u, cycle %d: gs_setup: %s\n", c->id, cycle, gsr_last_error_message());
    return 1;
  }
  gs(u, gs_double, gs_add, 0, h, NULL);
  gs_free(h);
  if (gsr_last_error() != GSR_SUCCESS || u[0] != (double)c->np) {
    printf("FAIL: rank %u, cycle %d: %s (u[0] = %g)\n", c->id, cycle, gsr_last_error_message(), u[0]);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  struct comm c;
  int cycles, cycle, failed = 0;
  MPI_Init(&argc, &argv);
  cycles = argc > 1 ? atoi(argv[1]) : 2500;
  comm_init(&c, MPI_COMM_WORLD);
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  for (cycle = 0; cycle < cycles && !failed; ++cycle) failed = one_cycle(&c, cycle);
  if (!failed) printf("rank %u: %d handles set up, used and freed\n", c.id, cycles);
  comm_free(&c);
  MPI_Finalize();
  return failed;
}
