/* ab_call_cost.c — the per-call cost of gs through the C API, for A/B comparisons of two
 * builds of libgsr (scripts/ab-call-cost.sh runs this one binary against each library in
 * turn). Every rank holds ids 1 .. n/2, each twice: every group has two copies on every
 * rank, so a call sums pairs locally and exchanges n/2 values with every other rank. With
 * a small n the cost gsr adds around MPI is as large a share of a call as it gets; with a
 * large one, the call is memory traffic. Prints, on rank 0, the median
 * over `rounds` of the seconds per call of: gs, gs_vec (k = 3), igs + gs_wait.
 *
 * usage: mpiexec -n P ab_call_cost [n = 1000] [calls = 20000] [rounds = 5] */
#include <gsr/gs.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  const int calls = argc > 2 ? atoi(argv[2]) : 20000;
  const int rounds = argc > 3 ? atoi(argv[3]) : 5;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  slong *ids = malloc((size_t)n * sizeof *ids);
  double *u = malloc((size_t)n * 3 * sizeof *u);
  double *times = malloc((size_t)rounds * sizeof *times);
  if (!ids || !u || !times || n < 2) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < n; ++i) ids[i] = i % (n / 2) + 1;
  struct comm c;
  comm_init(&c, MPI_COMM_WORLD);
  struct gs_data *gsh = gs_setup(ids, (uint)n, &c, 0, gs_pairwise, 0);
  const char *kinds[] = {"gs", "gs_vec3", "igs+wait"};
  for (int kind = 0; kind < 3; ++kind) {
    for (int round = 0; round < rounds; ++round) {
      for (int i = 0; i < 3 * n; ++i) u[i] = 1.0;
      MPI_Barrier(MPI_COMM_WORLD);
      const double begin = MPI_Wtime();
      for (int call = 0; call < calls; ++call) {
        if (kind == 0) {
          gs(u, gs_double, gs_max, 0, gsh, NULL);
        } else if (kind == 1) {
          gs_vec(u, 3, gs_double, gs_max, 0, gsh, NULL);
        } else {
          int request;
          igs(u, gs_double, gs_max, 0, gsh, NULL, &request);
          gs_wait(request);
        }
      }
      double seconds = (MPI_Wtime() - begin) / calls, slowest = 0;
      MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      times[round] = slowest;
    }
    qsort(times, (size_t)rounds, sizeof *times, by_value);
    if (rank == 0) printf("%s %.6e\n", kinds[kind], times[rounds / 2]);
  }
  gs_free(gsh);
  comm_free(&c);
  free(ids);
  free(u);
  free(times);
  MPI_Finalize();
  return 0;
}
