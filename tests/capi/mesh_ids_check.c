/* A loaded mesh's ids go straight to gs_setup: compiled with -Wall -Wextra -pedantic
 * -Werror, this fails to build if gsr_mesh.ids and gs_setup's ids ever differ in type
 * (int64_t is long here, slong is long long: "incompatible pointer types"). Run, it sets a
 * handle up from a mesh struct filled by hand (two elements of two nodes sharing id 2) and
 * sums ones: the shared node counts 2, the others 1. */
#include <gsr/mesh.h>

#include <stdio.h>

static struct gs_data *setup_from_mesh(const gsr_mesh *mesh, const struct comm *c) {
  return gs_setup(mesh->ids, (uint)mesh->n, c, 0, gs_auto, 0);
}

int main(int argc, char **argv) {
  slong ids[4] = {1, 2, 2, 3};
  double u[4] = {1, 1, 1, 1};
  const double expected[4] = {1, 2, 2, 1};
  gsr_mesh mesh = {0};
  struct comm c;
  struct gs_data *h;
  int failures = 0, i;
  MPI_Init(&argc, &argv);
  comm_init(&c, MPI_COMM_SELF);
  mesh.ids = ids;
  mesh.n = 4;
  h = setup_from_mesh(&mesh, &c);
  gs(u, gs_double, gs_add, 0, h, NULL);
  for (i = 0; i < 4; ++i) {
    if (u[i] != expected[i]) {
      fprintf(stderr, "mesh_ids_check: node %d summed to %g, expected %g\n", i, u[i], expected[i]);
      ++failures;
    }
  }
  gs_free(h);
  comm_free(&c);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
