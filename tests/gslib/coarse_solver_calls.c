/* coarse_solver_calls.c — a C program written against gslib's own headers ("gslib.h",
 * built with gslib's default prefixes, so gs_setup means gslib_gs_setup), making the
 * gather-scatter calls Nek5000's C files make:
 *   - crs_xxt.c: a crystal-router handle, gs_sint with gs_bpr, then gs_add;
 *   - crs_amg.c: handles with gs_auto and verbose = 1, gs_double gs_add with transpose 0
 *     and 1, the coarse grid's gs_top with unique = 1, gs_vec of two sints on it (with a
 *     NULL array where a rank holds no entries), and the handle's communicator read
 *     through `struct gs_data { struct comm comm; }` as fem_amg_preco.c does;
 *   - partitioner.c: a pairwise handle's pw_data_nmsg / pw_data_size;
 * plus gs_unique, gs_vec, gs_many, igs/gs_wait and min/max/mul, and gslib's comm_allreduce
 * (from libgs.a's comm.o, which must stay linkable beside gsr).
 *
 * The same source is linked twice (tests/gslib/CMakeLists.txt): with gsr's libraries ahead
 * of libgs.a, and with libgs.a alone. Each rank writes its results to <prefix>.<rank>, one
 * value per line, "i <label> <index> <integer>" or "d <label> <index> <hex double>", for
 * compare_outputs.py. argv[2] is the method of the handle whose pw_data are printed
 * (gslib answers pw_data only for its pairwise method; gsr for every method).
 */
#include "gslib.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What fem_amg_preco.c declares to reach a handle's communicator. */
struct gs_data_comm_view {
  struct comm comm;
};

static FILE *out;

static void put_ints(const char *label, const sint *v, uint n, unsigned k) {
  for (uint i = 0; i < n * k; ++i) fprintf(out, "i %s %u %d\n", label, i, (int)v[i]);
}
static void put_slongs(const char *label, const slong *v, uint n) {
  for (uint i = 0; i < n; ++i) fprintf(out, "i %s %u %lld\n", label, i, (long long)v[i]);
}
static void put_doubles(const char *label, const double *v, uint n) {
  for (uint i = 0; i < n; ++i) fprintf(out, "d %s %u %a\n", label, i, v[i]);
}
/* After a transpose = 1 call: flagged entries (id < 0) are documented as not set, so they
 * are written as "f <label> <index> <value> <value before the call>". gslib does write
 * one of them in one case: when a rank holds an id two or more times, all flagged, its
 * local partial is left in the first (its local gather's target). */
static void put_transposed(const char *label, const double *v, const double *before, const slong *id, uint n) {
  for (uint i = 0; i < n; ++i) {
    if (id[i] < 0)
      fprintf(out, "f %s %u %a %a\n", label, i, v[i], before[i]);
    else
      fprintf(out, "d %s %u %a\n", label, i, v[i]);
  }
}

/* A rank's ids: 48 entries over 30 distinct ids, repeated within the rank and shared with
 * the other ranks (up to every rank), some 0; flagged ones negated when `flags` (with
 * flags == 2 also every copy of the ids divisible by 4, on every rank). */
#define N 48
static void make_ids(slong *id, uint rank, int flags) {
  for (uint i = 0; i < N; ++i) {
    slong v = 1 + (slong)((rank * 13 + i * 7) % 30);
    if (i % 11 == 5) v = 0;
    if (flags && v != 0 && ((i + rank) % 5 == 0 || (flags == 2 && v % 4 == 0))) v = -v;
    id[i] = v;
  }
}
/* Values in [1, 2) with many bits set, so a different order of additions would show. */
static double value(uint rank, uint i, uint salt) {
  return 1.0 + (double)((rank * 977u + i * 131u + salt * 7919u) % 1000u) / 1024.0 + 1.0 / 3.0 / (1.0 + i + rank);
}

static void crs_xxt_calls(const struct comm *c) {
  slong id[N];
  sint v[N];
  buffer buf;
  make_ids(id, c->id, 0);
  buffer_init(&buf, 1024);
  struct gs_data *gsh = gs_setup(id, N, c, 0, gs_crystal_router, 0);
  for (uint i = 0; i < N; ++i) v[i] = (sint)(1 + ((c->id * 37 + i * 11) % 200));
  gs(v, gs_sint, gs_bpr, 0, gsh, &buf);
  put_ints("xxt_bpr", v, N, 1);
  for (uint i = 0; i < N; ++i) v[i] = (sint)(c->id + 2 * i);
  gs(v, gs_sint, gs_add, 0, gsh, &buf);
  put_ints("xxt_add", v, N, 1);
  gs_free(gsh);
  buffer_free(&buf);
}

static void crs_amg_calls(const struct comm *c) {
  slong id[N];
  double x[N], b[N];
  make_ids(id, c->id, 1);
  /* Q_W-like: flagged ids, auto, verbose. */
  double before[N];
  struct gs_data *q = gs_setup(id, N, c, 0, gs_auto, 1);
  for (uint i = 0; i < N; ++i) x[i] = value(c->id, i, 1), b[i] = before[i] = value(c->id, i, 2);
  gs(x, gs_double, gs_add, 0, q, 0);
  gs(b, gs_double, gs_add, 1, q, 0);
  put_doubles("amg_q_t0", x, N);
  put_transposed("amg_q_t1", b, before, id, N);
  gs_free(q);

  /* gs_top: unique = 1, on the last rank no entries at all (NULL arrays). */
  const int empty = c->np > 1 && c->id == c->np - 1;
  const uint n = empty ? 0 : N;
  make_ids(id, c->id, 0);
  struct gs_data *top = gs_setup(empty ? NULL : id, n, c, 1, gs_auto, 1);
  slong owned[N]; /* the flags unique = 1 stands for: gs_unique's */
  memcpy(owned, id, sizeof id);
  gs_unique(empty ? NULL : owned, n, c);
  for (uint i = 0; i < N; ++i) x[i] = value(c->id, i, 3), b[i] = before[i] = value(c->id, i, 4);
  gs(empty ? NULL : b, gs_double, gs_add, 1, top, 0);
  gs(empty ? NULL : x, gs_double, gs_add, 0, top, 0);
  put_transposed("amg_top_t1", b, before, owned, n);
  put_doubles("amg_top_t0", x, n);
  sint rid[2 * N];
  for (uint i = 0; i < 2 * N; ++i) rid[i] = (sint)((c->id + 1) * (i + 3) % 17);
  buffer buf;
  buffer_init(&buf, 0);
  gs_vec(empty ? NULL : rid, 2, gs_sint, gs_add, 0, top, &buf);
  put_ints("amg_top_rid", rid, n, 2);
  buffer_free(&buf);

  /* The handle's communicator, read as fem_amg_preco.c reads it. */
  const struct gs_data_comm_view *view = (const struct gs_data_comm_view *)top;
  int size = 0, same = MPI_UNEQUAL;
  MPI_Comm_size(view->comm.c, &size);
  MPI_Comm_compare(view->comm.c, c->c, &same);
  fprintf(out, "i top_comm_np 0 %d\n", size);
  fprintf(out, "i top_comm_np 1 %u\n", view->comm.np);
  fprintf(out, "i top_comm_id 0 %u\n", view->comm.id);
  fprintf(out, "i top_comm_congruent 0 %d\n", same == MPI_CONGRUENT);
  gs_free(top);
}

/* pw_data_nmsg and pw_data_size of gsh, as "<label>_nmsg" and "<label>_size" lines. */
static void put_pw_data(struct gs_data *gsh, const char *label) {
  int nmsg = -1;
  pw_data_nmsg(gsh, &nmsg);
  fprintf(out, "i %s_nmsg 0 %d\n", label, nmsg);
  int *sizes = malloc((nmsg > 0 ? (size_t)nmsg : 1) * sizeof *sizes);
  pw_data_size(gsh, sizes);
  for (int i = 0; i < nmsg; ++i) fprintf(out, "i %s_size %d %d\n", label, i, sizes[i]);
  free(sizes);
}

static void partitioner_calls(const struct comm *c, gs_method method, int flags, const char *label) {
  slong id[N];
  char unique_label[64];
  make_ids(id, c->id, flags);
  struct gs_data *gsh = gs_setup(id, N, c, 0, method, 0);
  put_pw_data(gsh, label);
  gs_free(gsh);
  /* The same ids with unique = 1 (as gs_top): only each id's owner holds one unflagged.
   * Ids held only flagged stay out of the counts in both libraries (though gslib's unique
   * then leaves every copy flagged and gsr's unflags one: docs/c-api.md). */
  gsh = gs_setup(id, N, c, 1, method, 0);
  snprintf(unique_label, sizeof unique_label, "%s_unique", label);
  put_pw_data(gsh, unique_label);
  gs_free(gsh);
}

static void other_calls(const struct comm *c) {
  slong id[N], uid[N];
  make_ids(uid, c->id, 0);
  gs_unique(uid, N, c);
  put_slongs("unique_ids", uid, N);
  make_ids(id, c->id, 1);

  struct gs_data *gsh = gs_setup(id, N, c, 0, gs_pairwise, 0);
  double v[3 * N], m0[N], m1[N], m2[N];
  for (uint i = 0; i < 3 * N; ++i) v[i] = value(c->id, i, 5);
  gs_vec(v, 3, gs_double, gs_add, 0, gsh, 0);
  put_doubles("vec3_add", v, 3 * N);
  double b0[N], b1[N], b2[N];
  for (uint i = 0; i < N; ++i) {
    m0[i] = b0[i] = value(c->id, i, 6);
    m1[i] = b1[i] = -value(c->id, i, 7);
    m2[i] = b2[i] = value(c->id, i, 8);
  }
  void *many[3] = {m0, m1, m2};
  gs_many(many, 3, gs_double, gs_max, 1, gsh, 0);
  put_transposed("many_max0", m0, b0, id, N);
  put_transposed("many_max1", m1, b1, id, N);
  put_transposed("many_max2", m2, b2, id, N);
  for (uint i = 0; i < N; ++i) m0[i] = value(c->id, i, 9);
  gs(m0, gs_double, gs_min, 0, gsh, 0);
  put_doubles("min", m0, N);
  for (uint i = 0; i < N; ++i) m0[i] = 0.5 + value(c->id, i, 10) / 4;
  gs(m0, gs_double, gs_mul, 0, gsh, 0);
  put_doubles("mul", m0, N);
  slong lv[N];
  for (uint i = 0; i < N; ++i) lv[i] = (slong)(c->id * 1000 + i) * 4099;
  int request = -1;
  igs(lv, gs_slong, gs_add, 0, gsh, 0, &request);
  gs_wait(request);
  put_slongs("igs_slong_add", lv, N);
  gs_free(gsh);

  /* gslib's own collective, from libgs.a's comm.o. */
  sint total = (sint)(c->id + 1), work;
  comm_allreduce(c, gs_sint, gs_add, &total, 1, &work);
  fprintf(out, "i allreduce 0 %d\n", (int)total);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc != 3) {
    fprintf(stderr, "usage: %s OUTPUT_PREFIX pairwise|crystal_router|all_reduce|auto\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  gs_method pw_method = gs_pairwise;
  if (!strcmp(argv[2], "crystal_router"))
    pw_method = gs_crystal_router;
  else if (!strcmp(argv[2], "all_reduce"))
    pw_method = gs_all_reduce;
  else if (!strcmp(argv[2], "auto"))
    pw_method = gs_auto;
  else if (strcmp(argv[2], "pairwise")) {
    fprintf(stderr, "%s: unknown method '%s'\n", argv[0], argv[2]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  struct comm c;
  comm_init(&c, MPI_COMM_WORLD);
  char path[4096];
  snprintf(path, sizeof path, "%s.%u", argv[1], c.id);
  out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "%s: cannot write %s\n", argv[0], path);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  crs_xxt_calls(&c);
  crs_amg_calls(&c);
  partitioner_calls(&c, pw_method, 0, "pw");
  partitioner_calls(&c, pw_method, 1, "pw_flagged");
  partitioner_calls(&c, pw_method, 2, "pw_all_flagged");
  other_calls(&c);
  fclose(out);
  comm_free(&c);
  MPI_Finalize();
  return 0;
}
