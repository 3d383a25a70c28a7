/* gslib_style.c — a C program written the way gslib users write one (#include "gslib.h",
 * struct comm, slong ids, gs_setup(..., gs_auto, 0), gs(u, gs_double, gs_add, 0, h, 0)),
 * built against gsr/gslib.h with only -I<include>/gsr, run at P = 1, 2 and 3 on the
 * two-element example; the expected values are the tables of docs/concepts.md. */
#include "gslib.h"

#include "gslib_style_tables.h"

#include <math.h>

static int failures = 0;

static void check(int ok, const char *what, uint rank, int entry) {
  if (ok) return;
  fprintf(stderr, "[rank %u] FAILED: %s, entry %d\n", rank, what, entry);
  ++failures;
}

static int near(double a, double b) { return fabs(a - b) <= 1e-12; }

int main(int argc, char **argv) {
  struct comm c;
  struct gs_data *h, *ha;
  slong *id;
  double *u, *v, *w;
  double *arrays[2];
  long long *big;
  uint n, first, i;
  int request, global_failures = 0;

  MPI_Init(&argc, &argv);
  comm_init(&c, MPI_COMM_WORLD);
  first = SEED_N * c.id / c.np;
  n = SEED_N * (c.id + 1) / c.np - first;

  id = tmalloc(slong, n);
  u = tmalloc(double, n);
  v = tcalloc(double, 2 * n);
  w = tmalloc(double, n);
  big = tmalloc(long long, n);
  for (i = 0; i < n; ++i) id[i] = seed_id[first + i];

  h = gs_setup(id, n, &c, 0, gs_auto, 0);

  /* QQ^T u: Table 2, add. */
  for (i = 0; i < n; ++i) u[i] = seed_u[first + i];
  gs(u, gs_double, gs_add, 0, h, 0);
  for (i = 0; i < n; ++i) check(near(u[i], seed_add[first + i]), "gs add", c.id, (int)(first + i));

  /* gs_vec, two components (u, -u) under max: Table 2 max and minus Table 2 min. */
  for (i = 0; i < n; ++i) v[2 * i] = seed_u[first + i], v[2 * i + 1] = -seed_u[first + i];
  gs_vec(v, 2, gs_double, gs_max, 0, h, 0);
  for (i = 0; i < n; ++i) {
    check(v[2 * i] == seed_max[first + i], "gs_vec max, component 0", c.id, (int)(first + i));
    check(v[2 * i + 1] == -seed_min[first + i], "gs_vec max, component 1", c.id, (int)(first + i));
  }

  /* gs_many, two arrays (u, -u) under min. */
  for (i = 0; i < n; ++i) u[i] = seed_u[first + i], w[i] = -seed_u[first + i];
  arrays[0] = u, arrays[1] = w;
  gs_many((void *const *)arrays, 2, gs_double, gs_min, 0, h, 0);
  for (i = 0; i < n; ++i) {
    check(u[i] == seed_min[first + i], "gs_many min, array 0", c.id, (int)(first + i));
    check(w[i] == -seed_max[first + i], "gs_many min, array 1", c.id, (int)(first + i));
  }

  /* igs + gs_wait. */
  for (i = 0; i < n; ++i) u[i] = seed_u[first + i];
  igs(u, gs_double, gs_add, 0, h, 0, &request);
  gs_wait(request);
  for (i = 0; i < n; ++i) check(near(u[i], seed_add[first + i]), "igs add", c.id, (int)(first + i));

  /* 64-bit integers (gs_slong = gs_long_long): id + 2^40 summed over the copies of a node. */
  for (i = 0; i < n; ++i) big[i] = seed_id[first + i] + (1LL << 40);
  gs(big, gs_slong, gs_add, 0, h, 0);
  for (i = 0; i < n; ++i) {
    const long long copies =
        seed_id[first + i] <= 9 && seed_id[first + i] % 3 == 0 ? 2 : 1; /* nodes 3, 6, 9 are shared */
    check(big[i] == copies * (seed_id[first + i] + (1LL << 40)), "gs gs_slong add", c.id, (int)(first + i));
  }
  gs_free(h);

  /* Flagged ids (Table 1's id_asym): Q (transpose 0) and Q^T (transpose 1), Tables 3 and 4. */
  for (i = 0; i < n; ++i) id[i] = seed_id_asym[first + i];
  ha = gs_setup(id, n, &c, 0, gs_crystal_router, 0);
  for (i = 0; i < n; ++i) u[i] = seed_u[first + i];
  gs(u, gs_double, gs_add, 0, ha, 0);
  for (i = 0; i < n; ++i)
    check(near(u[i], seed_asym_add_t0[first + i]), "gs asym, transpose 0", c.id, (int)(first + i));
  for (i = 0; i < n; ++i) u[i] = seed_u[first + i];
  gs(u, gs_double, gs_add, 1, ha, 0);
  for (i = 0; i < n; ++i)
    check(near(u[i], seed_asym_add_t1[first + i]), "gs asym, transpose 1", c.id, (int)(first + i));
  gs_free(ha);

  /* gs_unique: one unflagged copy per node; at P = 2 it is Table 1's id_asym. */
  for (i = 0; i < n; ++i) id[i] = seed_id[first + i];
  gs_unique(id, n, &c);
  for (i = 0; i < n; ++i) {
    check(id[i] == seed_id[first + i] || id[i] == -seed_id[first + i], "gs_unique keeps |id|", c.id, (int)(first + i));
    if (c.np == 2) check(id[i] == seed_id_asym[first + i], "gs_unique gives id_asym", c.id, (int)(first + i));
    u[i] = id[i] > 0 ? 1.0 : 0.0;
  }
  h = gs_setup(id, n, &c, 0, gs_pairwise, 0);
  gs(u, gs_double, gs_add, 1, h, 0); /* counts the unflagged copies of each node */
  for (i = 0; i < n; ++i)
    check(id[i] < 0 || u[i] == 1.0, "gs_unique leaves one unflagged copy", c.id, (int)(first + i));
  gs_free(h);

  free(id), free(u), free(v), free(w), free(big);
  MPI_Allreduce(&failures, &global_failures, 1, MPI_INT, MPI_SUM, c.c);
  comm_free(&c);
  MPI_Finalize();
  if (global_failures == 0 && c.id == 0) printf("gslib_style.c: all checks passed\n");
  return global_failures == 0 ? 0 : 1;
}
