/* The C personalized communication (include/gsr/transfer.h) at P = 1..3. Record transfer:
 * every method delivers what each rank computes it must receive (every rank knows every
 * rank's records), sorted by source then position; the statistics name the method; a bad
 * destination and a NULL output pointer on the last rank are errors on every rank in return
 * mode, with NULL outputs. Scatter and gather from every root: each block is the one built
 * for its rank, the counts are right, and the root's statistics are the binomial tree's
 * (ceil(log2 P) rounds, every other rank's block sent or received once).
 * Exits non-zero on every rank if any rank failed. */
#include <gsr/transfer.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int source;
  int index;
  double value;
} record;

static int failures = 0;

#define CHECK(cond, ...)                           \
  do {                                             \
    if (!(cond)) {                                 \
      printf("transfer_c: FAIL: rank %d: ", rank); \
      printf(__VA_ARGS__);                         \
      printf("\n");                                \
      ++failures;                                  \
    }                                              \
  } while (0)

static int records_of(int source) { return 5 + 3 * source; }
static int destination_of(int source, int index, int ranks) { return (source * 7 + index * 3) % ranks; }
static double value_of(int source, int index) { return source * 1000.0 + index + 0.25; }

static void check_method(int method, int rank, int ranks) {
  const int n = records_of(rank);
  record *mine = malloc((size_t)n * sizeof(record));
  int *to = malloc((size_t)n * sizeof(int));
  void *got = NULL;
  int *from = NULL;
  size_t n_got = 0, expected = 0, k = 0;
  gsr_transfer_stats stats;
  int s, i, rc;
  for (i = 0; i < n; ++i) {
    mine[i].source = rank;
    mine[i].index = i;
    mine[i].value = value_of(rank, i);
    to[i] = destination_of(rank, i, ranks);
  }
  rc = gsr_transfer(mine, (size_t)n, sizeof(record), to, MPI_COMM_WORLD, method, &got, &from, &n_got, &stats);
  CHECK(rc == GSR_SUCCESS, "%s: code %d: %s", gsr_transfer_method_name(method), rc, gsr_last_error_message());
  for (s = 0; s < ranks; ++s)
    for (i = 0; i < records_of(s); ++i)
      if (destination_of(s, i, ranks) == rank) ++expected;
  CHECK(n_got == expected, "%s: %zu records received, expected %zu", gsr_transfer_method_name(method), n_got, expected);
  for (s = 0; s < ranks && n_got == expected; ++s)
    for (i = 0; i < records_of(s); ++i) {
      const record *r;
      if (destination_of(s, i, ranks) != rank) continue;
      r = (const record *)got + k;
      CHECK(r->source == s && r->index == i && r->value == value_of(s, i) && from[k] == s,
            "%s: record %zu is (%d, %d, %g) from %d, expected (%d, %d) from %d", gsr_transfer_method_name(method), k,
            r->source, r->index, r->value, from[k], s, i, s);
      ++k;
    }
  if (method != GSR_TRANSFER_AUTO)
    CHECK(stats.method == method, "stats.method %d for %s", stats.method, gsr_transfer_method_name(method));
  if (method == GSR_TRANSFER_DIRECT) {
    size_t own = 0; /* records this rank keeps: copied, not sent, so not counted */
    for (i = 0; i < n; ++i) own += to[i] == rank;
    CHECK(stats.records_received == expected - own && stats.stages == 1,
          "direct: %zu records counted as received in %d stages, expected %zu in 1", stats.records_received,
          stats.stages, expected - own);
  }
  free(got);
  free(from);
  free(mine);
  free(to);
}

/* The last rank passes a bad argument (`how`), the others good ones; everyone must fail. */
static void check_error(const char *how, int rank, int ranks) {
  record one;
  int to = 0;
  void *got = (void *)&one;
  int *from = &to;
  size_t n_got = 99;
  int rc;
  const int bad = rank == ranks - 1;
  one.source = rank;
  one.index = 0;
  one.value = 0;
  if (bad && strcmp(how, "destination") == 0) to = ranks;
  rc = gsr_transfer(&one, 1, sizeof one, &to, MPI_COMM_WORLD, GSR_TRANSFER_DIRECT,
                    bad && strcmp(how, "null output") == 0 ? NULL : &got, &from, &n_got, NULL);
  if (bad) {
    CHECK(rc == GSR_ERR_INVALID_ARGUMENT, "%s: code %d, expected invalid_argument", how, rc);
    CHECK(strncmp(gsr_last_error_message(), "gsr: gsr_transfer: ", 19) == 0, "%s: message '%s'", how,
          gsr_last_error_message());
  } else {
    CHECK(rc == GSR_ERR_REMOTE, "%s elsewhere: code %d, expected remote", how, rc);
    CHECK(strstr(gsr_last_error_message(), " failed: ") != NULL, "%s elsewhere: message '%s'", how,
          gsr_last_error_message());
  }
  CHECK(from == NULL && n_got == 0, "%s: outputs not cleared", how);
  if (!(bad && strcmp(how, "null output") == 0)) CHECK(got == NULL, "%s: received not cleared", how);
  gsr_clear_error();
}

/* Block r of a scatter from `root`: block_length(r) values, value j of it root * 100 + r + j / 8. */
static int block_length(int r) { return 2 * r + (r % 2 ? 0 : 3); }
static double block_value(int root, int r, int j) { return root * 100.0 + r + j / 8.0; }

static void check_scatter_gather(int root, int rank, int ranks) {
  int64_t *counts = malloc((size_t)ranks * sizeof(int64_t));
  size_t total = 0, at = 0, count = 0, others = 0;
  double *all, *mine;
  void *block = NULL, *blocks = NULL;
  int64_t *got_counts = NULL;
  gsr_tree_stats stats;
  int r, j, rc, rounds = 0;
  while ((1 << rounds) < ranks) ++rounds;
  for (r = 0; r < ranks; ++r) {
    counts[r] = block_length(r);
    total += (size_t)counts[r];
    if (r != root) others += (size_t)counts[r];
  }
  all = malloc(total * sizeof(double) + 1);
  for (r = 0; r < ranks; ++r)
    for (j = 0; j < block_length(r); ++j) all[at++] = block_value(root, r, j);

  rc = gsr_scatter(all, counts, sizeof(double), root, MPI_COMM_WORLD, &block, &count, &stats);
  CHECK(rc == GSR_SUCCESS, "scatter from %d: code %d: %s", root, rc, gsr_last_error_message());
  CHECK(count == (size_t)block_length(rank), "scatter from %d: %zu values, expected %d", root, count,
        block_length(rank));
  mine = block;
  for (j = 0; j < block_length(rank) && count == (size_t)block_length(rank); ++j)
    CHECK(mine[j] == block_value(root, rank, j), "scatter from %d: value %d is %g, expected %g", root, j, mine[j],
          block_value(root, rank, j));
  CHECK(stats.tree_rounds == rounds, "scatter: %d tree rounds, expected %d", stats.tree_rounds, rounds);
  if (rank == root)
    CHECK(stats.bytes_sent == others * sizeof(double) && stats.bytes_received == 0,
          "scatter root: %zu bytes sent, %zu received; expected %zu and 0", stats.bytes_sent, stats.bytes_received,
          others * sizeof(double));

  /* Gather the blocks back: the root gets all of them, in rank order. */
  rc = gsr_gather(block, (int64_t)count, sizeof(double), root, MPI_COMM_WORLD, &blocks, &got_counts, &stats);
  CHECK(rc == GSR_SUCCESS, "gather to %d: code %d: %s", root, rc, gsr_last_error_message());
  if (rank == root) {
    CHECK(got_counts != NULL && (total == 0 || blocks != NULL), "gather root: no result");
    for (r = 0; r < ranks && got_counts; ++r)
      CHECK(got_counts[r] == counts[r], "gather: count of rank %d is %lld, expected %lld", r, (long long)got_counts[r],
            (long long)counts[r]);
    for (at = 0; at < total && blocks; ++at)
      CHECK(((double *)blocks)[at] == all[at], "gather: value %zu is %g, expected %g", at, ((double *)blocks)[at],
            all[at]);
    CHECK(stats.bytes_received == others * sizeof(double) && stats.messages_sent == 0,
          "gather root: %zu bytes received, %zu messages sent", stats.bytes_received, stats.messages_sent);
  } else {
    CHECK(blocks == NULL && got_counts == NULL, "gather: a result on rank %d, not the root", rank);
  }
  free(block);
  free(blocks);
  free(got_counts);
  free(all);
  free(counts);
}

int main(int argc, char **argv) {
  int rank = 0, ranks = 1, method, root, any = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  for (method = GSR_TRANSFER_AUTO; method <= GSR_TRANSFER_TWO_ROUND; ++method) check_method(method, rank, ranks);
  check_error("destination", rank, ranks);
  check_error("null output", rank, ranks);
  for (root = 0; root < ranks; ++root) check_scatter_gather(root, rank, ranks);
  CHECK(strcmp(gsr_transfer_method_name(GSR_TRANSFER_TWO_ROUND), "two_round") == 0, "method name");
  CHECK(strcmp(gsr_transfer_method_name(42), "unknown") == 0, "unknown method name");
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (any == 0) printf("transfer_c: rank %d: every check passed\n", rank);
  MPI_Finalize();
  return any != 0;
}
