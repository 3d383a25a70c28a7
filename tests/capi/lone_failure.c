/* One rank alone passes a bad pointer to a collective C call, in return mode; every rank
 * must come back with an error (docs/errors.md), none may wait forever. Run with
 * GSR_TIMEOUT=3 at P >= 2; exits 1 with "lone_failure: FAIL" on the first broken promise.
 *   1. The last rank's igs has a NULL request pointer: it still takes part in the call, so
 *      the others' gs_wait fails at once with GSR_ERR_REMOTE (E-ARG-NULL-REQUEST), well
 *      within GSR_TIMEOUT (E-CALL-REMOTE-ARGS), and the handle works for the next call.
 *   2. The last rank's gs_setup has a NULL struct comm pointer (E-C-NULL-COMM-STRUCT), so it
 *      cannot tell the others: they give up after GSR_TIMEOUT with GSR_ERR_TIMEOUT
 *      (E-SETUP-TIMEOUT) and go on with a fresh communicator. */
#include <gsr/gs.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = 0;

static void expect(int ok, const char *what) {
  if (ok) return;
  printf("lone_failure: FAIL on rank %d: %s (last error %d: \"%s\")\n", rank, what, gsr_last_error(),
         gsr_last_error_message());
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Every rank holds id 1 and an id of its own: after gs_add, u[0] is the rank count. */
static void expect_working_handle(struct gs_data *h, int ranks) {
  double u[2] = {1.0, 5.0};
  gs(u, gs_double, gs_add, 0, h, NULL);
  expect(gsr_last_error() == GSR_SUCCESS, "a call after the failure succeeds");
  expect(u[0] == (double)ranks && u[1] == 5.0, "a call after the failure sums correctly");
}

int main(int argc, char **argv) {
  struct comm c, fresh;
  slong id[2];
  double u[2] = {1.0, 5.0};
  double started;
  int ranks, lone, request = -1;
  struct gs_data *h;
  const char *timeout_text = getenv("GSR_TIMEOUT");
  const double timeout = timeout_text ? atof(timeout_text) : 0.0;

  MPI_Init(&argc, &argv);
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  comm_init(&c, MPI_COMM_WORLD);
  rank = (int)c.id;
  ranks = (int)c.np;
  lone = ranks - 1;
  expect(ranks >= 2 && timeout > 0, "run at P >= 2 with GSR_TIMEOUT set");
  id[0] = 1;
  id[1] = 100 + (slong)rank;
  h = gs_setup(id, 2, &c, 0, gs_auto, 0);
  expect(h != NULL, "setup");

  /* 1. A NULL request pointer on one rank. */
  started = MPI_Wtime();
  if (rank == lone) {
    igs(u, gs_double, gs_add, 0, h, NULL, NULL);
    expect(gsr_last_error() == GSR_ERR_INVALID_ARGUMENT, "igs with a NULL request pointer is refused");
    expect(strstr(gsr_last_error_message(), "the request pointer is NULL") != NULL, "the refusal names the pointer");
  } else {
    igs(u, gs_double, gs_add, 0, h, NULL, &request);
    expect(gsr_last_error() == GSR_SUCCESS, "igs starts");
    gs_wait(request);
    expect(gsr_last_error() == GSR_ERR_REMOTE, "gs_wait reports the other rank's refusal");
    expect(strstr(gsr_last_error_message(), "rejected its arguments") != NULL, "the report says what happened");
  }
  expect(MPI_Wtime() - started < timeout, "the failure is known before GSR_TIMEOUT");
  expect(u[1] == 5.0, "the rank's own entry is untouched");
  expect_working_handle(h, ranks);
  gs_free(h);

  /* 2. A NULL struct comm pointer on one rank. */
  started = MPI_Wtime();
  h = gs_setup(id, 2, rank == lone ? NULL : &c, 0, gs_auto, 0);
  expect(h == NULL, "setup fails on every rank");
  if (rank == lone) {
    expect(gsr_last_error() == GSR_ERR_INVALID_ARGUMENT, "the NULL comm pointer is refused");
    expect(strstr(gsr_last_error_message(), "struct comm pointer is NULL") != NULL, "the refusal names the pointer");
  } else {
    expect(gsr_last_error() == GSR_ERR_TIMEOUT, "the others time out");
    expect(strstr(gsr_last_error_message(), "for every rank of the communicator to join") != NULL,
           "the timeout says what it waited for");
    expect(MPI_Wtime() - started >= timeout, "the others waited GSR_TIMEOUT");
  }
  gsr_clear_error();

  /* The communicator keeps the abandoned step; a fresh one works. comm_init waits
   * GSR_TIMEOUT for the others too, and the lone rank got here GSR_TIMEOUT before them: the
   * ranks meet first. */
  MPI_Barrier(MPI_COMM_WORLD);
  comm_init(&fresh, MPI_COMM_WORLD);
  h = gs_setup(id, 2, &fresh, 0, gs_auto, 0);
  expect(h != NULL, "setup on a fresh communicator");
  expect_working_handle(h, ranks);
  gs_free(h);
  comm_free(&fresh);
  comm_free(&c);
  if (rank == 0) printf("lone_failure: every rank reported its error, none waited forever\n");
  MPI_Finalize();
  return 0;
}
