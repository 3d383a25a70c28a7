/* The C interface's default error mode: a bad call prints "gsr: <function>: <problem>" and
 * aborts the job. This program makes one such call (an unknown dom code) and prints a line
 * if it survives; the test passes when the message appears and that line does not. It is
 * also the check that gs.h compiles as C99. */
#include <gsr/gs.h>

#include <stdio.h>

int main(int argc, char **argv) {
  struct comm c;
  slong id[3];
  double u[3] = {1.0, 2.0, 3.0};
  struct gs_data *h;
  MPI_Init(&argc, &argv);
  comm_init(&c, MPI_COMM_WORLD);
  id[0] = 1;
  id[1] = 2;
  id[2] = 10 + (slong)c.id;
  if (gsr_get_error_mode() != GSR_ERRORS_ABORT) printf("default error mode is not abort\n");
  h = gs_setup(id, 3, &c, 0, gs_pairwise, 0);
  gs(u, (gs_dom)7, gs_add, 0, h, NULL);
  printf("survived the bad call\n");
  fflush(stdout);
  gs_free(h);
  comm_free(&c);
  MPI_Finalize();
  return 0;
}
