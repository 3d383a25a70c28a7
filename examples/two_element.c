/* two_element.c — the two-element worked example of docs/concepts.md (Tables 1-4 there),
 * through gsr's C interface: two spectral elements of order 2 share the nodes 3, 6 and 9.
 *
 *   mpiexec -n 2 ./gsr-two-element     element 1 on rank 0, element 2 on rank 1
 *   mpiexec -n 1 ./gsr-two-element     both elements on one rank (ids concatenated)
 *
 * Prints Table 1 (the maps and u) and Tables 2-4 (gs_add, gs_mul, gs_min, gs_max with id and
 * transpose 0, with id_asym and transpose 0, with id_asym and transpose 1), rank 0 printing
 * the rows of both elements. On two ranks it also checks that gs_unique turns id into
 * id_asym, as the documentation says it does. */
#include <gsr/gs.h>

#include <stdio.h>
#include <string.h>

#define NODES 9 /* (N+1)^2 nodes per element, N = 2 */

static const slong element_id[2][NODES] = {{1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 10, 11, 6, 12, 13, 9, 14, 15}};
static const slong element_id_asym[2][NODES] = {{1, 2, -3, 4, 5, 6, 7, 8, -9}, {3, 10, 11, -6, 12, 13, 9, 14, 15}};
static const double element_u[2][NODES] = {{1.0, 1.5, 2.0, 2.0, 0.8, 0.4, 0.5, 0.1, 2.5},
                                           {1.0, 0.3, 0.9, 1.2, 1.2, 2.1, 0.8, 0.3, 0.7}};

static const gs_op ops[4] = {gs_add, gs_mul, gs_min, gs_max};
static const char *const op_names[4] = {"gs_add", "gs_mul", "gs_min", "gs_max"};

/* The local arrays: this rank's element(s), one after the other. */
struct local {
  uint n;
  slong id[2 * NODES], id_asym[2 * NODES];
  double u[2 * NODES];
};

static void print_ids(const char *label, const char *name, const slong *row) {
  int i;
  printf("%-9s %-10s", label, name);
  for (i = 0; i < NODES; ++i) printf(" %5lld", (long long)row[i]);
  printf("\n");
}

static void print_values(const char *label, const char *name, const double *row) {
  int i;
  printf("%-9s %-10s", label, name);
  for (i = 0; i < NODES; ++i) printf(" %5.2f", row[i]);
  printf("\n");
}

/* Runs op on a copy of u with handle h and gathers both elements' rows on rank 0. */
static void run(struct gs_data *h, const struct local *mine, gs_op op, unsigned transpose, const struct comm *c,
                double both[2 * NODES]) {
  double v[2 * NODES];
  memcpy(v, mine->u, mine->n * sizeof(double));
  gs(v, gs_double, op, transpose, h, NULL);
  MPI_Gather(v, (int)mine->n, MPI_DOUBLE, both, (int)mine->n, MPI_DOUBLE, 0, c->c);
}

static void print_table(const char *title, struct gs_data *h, const struct local *mine, unsigned transpose,
                        const struct comm *c) {
  int k;
  if (c->id == 0) printf("\n%s\n", title);
  for (k = 0; k < 4; ++k) {
    double both[2 * NODES];
    run(h, mine, ops[k], transpose, c, both);
    if (c->id == 0) {
      print_values(op_names[k], "Omega^1", both);
      print_values("", "Omega^2", both + NODES);
    }
  }
}

int main(int argc, char **argv) {
  struct comm c;
  struct local mine;
  struct gs_data *symmetric, *asymmetric;
  int e, first, count;

  MPI_Init(&argc, &argv);
  comm_init(&c, MPI_COMM_WORLD);
  if (c.np != 1 && c.np != 2) {
    if (c.id == 0) fprintf(stderr, "two_element: run on 1 or 2 ranks (the example has two elements)\n");
    comm_free(&c);
    MPI_Finalize();
    return 1;
  }

  /* Two ranks: element c.id here. One rank: both elements. */
  first = c.np == 2 ? (int)c.id : 0;
  count = c.np == 2 ? 1 : 2;
  mine.n = (uint)(count * NODES);
  for (e = 0; e < count; ++e) {
    memcpy(mine.id + e * NODES, element_id[first + e], sizeof element_id[0]);
    memcpy(mine.id_asym + e * NODES, element_id_asym[first + e], sizeof element_id_asym[0]);
    memcpy(mine.u + e * NODES, element_u[first + e], sizeof element_u[0]);
  }

  if (c.id == 0) {
    printf("Table 1: local-to-global maps and the initial array u\n");
    for (e = 0; e < 2; ++e) {
      const char *label = e == 0 ? "Omega^1" : "Omega^2";
      print_ids(label, "id()", element_id[e]);
      print_ids("", "id_asym()", element_id_asym[e]);
      print_values("", "u", element_u[e]);
    }
  }

  /* id_asym is what gs_unique makes of id when each element has its own rank. */
  if (c.np == 2) {
    slong id[NODES];
    int i, same = 1, all_same = 0;
    memcpy(id, mine.id, sizeof id);
    gs_unique(id, mine.n, &c);
    for (i = 0; i < NODES; ++i) same = same && id[i] == mine.id_asym[i];
    MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_MIN, c.c);
    if (c.id == 0) printf("gs_unique(id) gives id_asym(): %s\n", all_same ? "yes" : "NO");
  }

  symmetric = gs_setup(mine.id, mine.n, &c, 0, gs_auto, 0);
  asymmetric = gs_setup(mine.id_asym, mine.n, &c, 0, gs_auto, 0);
  print_table("Table 2: symmetric, id(), transpose = 0", symmetric, &mine, 0, &c);
  print_table("Table 3: asymmetric, id_asym(), transpose = 0", asymmetric, &mine, 0, &c);
  print_table("Table 4: asymmetric, id_asym(), transpose = 1", asymmetric, &mine, 1, &c);
  gs_free(asymmetric);
  gs_free(symmetric);

  comm_free(&c);
  MPI_Finalize();
  return 0;
}
