/* gslib_consumer.c — a C program written for gslib (#include "gslib.h", struct comm, slong
 * ids, gs_setup/gs/gs_free), built against an installed gsr. The mesh is the two-element
 * example of docs/concepts.md spread over the ranks; every expected value is worked out
 * here by brute force over the whole id list, without gsr. Exits non-zero on any mismatch. */
#include "gslib.h"

#include <math.h>

#define N_TOTAL 18
static const slong global_id[N_TOTAL] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 3, 10, 11, 6, 12, 13, 9, 14, 15};

static double value_at(int i) { return 0.25 * i + 1.0 / (i + 3); }

int main(int argc, char **argv) {
  struct comm c;
  struct gs_data *h;
  slong id[N_TOTAL];
  double sum[N_TOTAL], big[N_TOTAL], count[N_TOTAL];
  long long shifted[N_TOTAL];
  int first, n, i, j, failures = 0, total = 0;

  MPI_Init(&argc, &argv);
  comm_init(&c, MPI_COMM_WORLD);
  first = N_TOTAL * (int)c.id / (int)c.np;
  n = N_TOTAL * ((int)c.id + 1) / (int)c.np - first;
  for (i = 0; i < n; ++i) {
    id[i] = global_id[first + i];
    sum[i] = big[i] = value_at(first + i);
    count[i] = 1.0;
    shifted[i] = global_id[first + i] + (1LL << 40);
  }

  h = gs_setup(id, (uint)n, &c, 0, gs_auto, 0);
  gs(sum, gs_double, gs_add, 0, h, 0);
  gs(big, gs_double, gs_max, 0, h, 0);
  gs(count, gs_double, gs_add, 0, h, 0);
  gs(shifted, gs_long_long, gs_add, 0, h, 0);
  gs_free(h);

  for (i = 0; i < n; ++i) {
    double want_sum = 0, want_max = -1e300, want_count = 0;
    for (j = 0; j < N_TOTAL; ++j) {
      if (global_id[j] != id[i]) continue;
      want_sum += value_at(j);
      want_max = value_at(j) > want_max ? value_at(j) : want_max;
      want_count += 1;
    }
    if (fabs(sum[i] - want_sum) > 1e-12 || big[i] != want_max || count[i] != want_count ||
        shifted[i] != (long long)want_count * (id[i] + (1LL << 40))) {
      fprintf(stderr,
              "rank %u, entry %d (id %lld): got sum %g max %g count %g long long %lld;"
              " expected %g %g %g %lld\n",
              c.id, first + i, (long long)id[i], sum[i], big[i], count[i], shifted[i], want_sum, want_max, want_count,
              (long long)want_count * (id[i] + (1LL << 40)));
      ++failures;
    }
  }
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, c.c);
  if (c.id == 0) printf("gslib_consumer.c at P = %u: %d wrong entries\n", c.np, total);
  comm_free(&c);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
