/* Codes outside gs_dom, gs_op and gs_method, as a C caller may pass them (any int): every
 * call rejects them with GSR_ERR_INVALID_ARGUMENT and a message naming the argument. Run
 * under UndefinedBehaviorSanitizer (GSR_SANITIZE) this also checks that the C++ side can
 * hold such a code at all: an enumeration without a fixed underlying type cannot, and
 * reading the argument was undefined ("load of value 99 ... type 'gs_dom'"). */
#include <gsr/gs.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;

/* The last call failed with an invalid argument that the message names as `word`. */
static void expect_rejected(const char *word, const char *what) {
  const char *message = gsr_last_error_message();
  if (gsr_last_error() != GSR_ERR_INVALID_ARGUMENT || strstr(message, word) == NULL) {
    printf("FAIL: %s: code %d, message \"%s\" (wanted code %d naming \"%s\")\n", what, gsr_last_error(), message,
           GSR_ERR_INVALID_ARGUMENT, word);
    ++failures;
  }
  gsr_clear_error();
}

static void check_calls(struct gs_data *h, const struct comm *c, const slong *id) {
  double u[3] = {1.0, 2.0, 3.0};
  void *arrays[1];
  int request = -1;
  arrays[0] = u;
  gs(u, (gs_dom)99, gs_add, 0, h, NULL);
  expect_rejected("dom", "gs with dom 99");
  gs_vec(u, 1, (gs_dom)-5, gs_add, 0, h, NULL);
  expect_rejected("dom", "gs_vec with dom -5");
  gs_many(arrays, 1, gs_double, (gs_op)99, 0, h, NULL);
  expect_rejected("op", "gs_many with op 99");
  igs(u, gs_double, (gs_op)-1, 0, h, NULL, &request);
  expect_rejected("op", "igs with op -1");
  if (gs_setup(id, 3, c, 0, (gs_method)99, 0) != NULL) printf("FAIL: gs_setup with method 99 returned a handle\n");
  expect_rejected("method", "gs_setup with method 99");
  if (u[0] != 1.0 || u[1] != 2.0 || u[2] != 3.0) {
    printf("FAIL: a rejected call changed the data\n");
    ++failures;
  }
}

int main(int argc, char **argv) {
  struct comm c;
  slong id[3];
  struct gs_data *h;
  MPI_Init(&argc, &argv);
  comm_init(&c, MPI_COMM_WORLD);
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  id[0] = 1;
  id[1] = 2;
  id[2] = 10 + (slong)c.id;
  h = gs_setup(id, 3, &c, 0, gs_pairwise, 0);
  if (h == NULL) {
    printf("FAIL: gs_setup: %s\n", gsr_last_error_message());
    ++failures;
  } else {
    check_calls(h, &c, id);
    gs_free(h);
  }
  if (failures == 0) printf("rank %u: every out-of-range code rejected\n", c.id);
  comm_free(&c);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
