/* gsr/transfer.h — personalized communication for C (docs/transfer.md): record transfer
 * (below), and scatter and gather of blocks along a binomial tree (further down).
 *
 * Record transfer: every rank hands over records
 * of a fixed size, each addressed to a rank of the communicator; every rank gets back the
 * records addressed to it, each with the rank that sent it, sorted by source rank and, within
 * one source, in the order the source had them.
 *
 *   typedef struct { double x[3]; long long id; } particle;
 *   particle *mine = ...; int *owner = ...;          owner[i]: the rank mine[i] goes to
 *   void *got; int *from; size_t n_got;
 *   gsr_transfer(mine, n, sizeof(particle), owner, MPI_COMM_WORLD, GSR_TRANSFER_AUTO,
 *                &got, &from, &n_got, NULL);
 *   ... ((particle *)got)[i] came from rank from[i] ...
 *   free(got); free(from);
 *
 * Collective over comm: every rank calls, with the same record size and method. Errors
 * follow gsr_set_error_mode (gs.h): abort by default; in GSR_ERRORS_RETURN mode the call
 * returns the code (also in gsr_last_error) and a bad argument on any rank is an error on
 * every rank (docs/errors.md, E-TRANSFER-*).
 */
#ifndef GSR_TRANSFER_H
#define GSR_TRANSFER_H

#include <gsr/gs.h>

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The methods (gsr::TransferMethod). */
enum { GSR_TRANSFER_AUTO = 0, GSR_TRANSFER_DIRECT = 1, GSR_TRANSFER_CRYSTAL_ROUTER = 2, GSR_TRANSFER_TWO_ROUND = 3 };

/* What one call did on this rank, summed over its rounds (largest_*: the largest message
 * this rank sent in any round). Messages to itself are not counted. */
typedef struct {
  int method; /* the method used: GSR_TRANSFER_DIRECT, _CRYSTAL_ROUTER or _TWO_ROUND */
  int stages; /* rounds: direct 1, crystal router its stages (at most ceil(log2 P)), two-round 2 */
  size_t messages_sent, messages_received;
  size_t records_sent, records_received;
  size_t bytes_sent, bytes_received;
  size_t largest_message_records, largest_message_bytes;
} gsr_transfer_stats;

/* Sends record i (record_bytes bytes at records + i * record_bytes) to rank
 * destinations[i], for i < count. On success *received points to the records that arrived
 * (*received_count of them, malloc'd: release with free; NULL when none arrived) and
 * *sources to the rank each came from (malloc'd likewise). stats may be NULL. Returns
 * GSR_SUCCESS or the error code; on error *received and *sources are NULL and
 * *received_count is 0 (where those pointers are not NULL themselves). */
int gsr_transfer(const void *records, size_t count, size_t record_bytes, const int *destinations, MPI_Comm comm,
                 int method, void **received, int **sources, size_t *received_count, gsr_transfer_stats *stats);

/* ---- combining scatter and gather (gsr/scatter_gather.hpp, docs/transfer.md) ---------------
 *
 * Personalized one-to-all scatter and all-to-one gather of blocks of any size along a
 * spanning binomial tree: ceil(log2 P) rounds, every block leaves (or reaches) the root once.
 * Values are value_bytes bytes each; counts are in values. Collective over comm: every rank
 * passes the same root and value_bytes. Errors as gsr_transfer's; on error the outputs are
 * NULL / 0. */

/* What one scatter or gather did on this rank (payload bytes are the blocks only; the
 * sizes headers, 8 bytes per block carried, are counted apart). */
typedef struct {
  int tree_rounds; /* ceil(log2 P): the rounds of the whole operation */
  int rounds;      /* the rounds in which this rank sent or received */
  size_t messages_sent, messages_received;
  size_t bytes_sent, bytes_received;
  size_t header_bytes_sent, header_bytes_received;
} gsr_tree_stats;

/* On the root: counts[r] (>= 0) values go to rank r, for every rank r of comm, taken from
 * data where the blocks lie back to back in rank order; data and counts are ignored
 * elsewhere (and may be NULL). On success *block points to this rank's block (malloc'd,
 * release with free; NULL when it is empty) and *count holds its length in values. */
int gsr_scatter(const void *data, const int64_t *counts, size_t value_bytes, int root, MPI_Comm comm, void **block,
                size_t *count, gsr_tree_stats *stats);

/* Every rank sends count (>= 0) values at data to the root. On success, on the root,
 * *blocks points to every rank's block back to back in rank order (malloc'd; NULL when all
 * are empty) and *counts to one count per rank (malloc'd, P entries); on the other ranks
 * both are NULL. blocks and counts are written on the root only but must not be NULL on
 * any rank. */
int gsr_gather(const void *data, int64_t count, size_t value_bytes, int root, MPI_Comm comm, void **blocks,
               int64_t **counts, gsr_tree_stats *stats);

/* The name of a method code ("auto", "direct", "crystal_router", "two_round"); "unknown"
 * for anything else. */
const char *gsr_transfer_method_name(int method);

#ifdef __cplusplus
}
#endif

#endif /* GSR_TRANSFER_H */
