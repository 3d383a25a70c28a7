/* capi/shim.h — what the library's other language shims (fortran/) need from the C layer
 * beyond gs.h: one error record shared with it, and a way to take part in a call whose
 * arguments the shim already found bad. Internal: not installed, not for users. */
#ifndef GSR_CAPI_SHIM_H
#define GSR_CAPI_SHIM_H

#include "gsr/gs.h"
#include "gsr/transfer.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Between enter and leave, failures of C entry points are recorded under `call` (the
 * shim's own name for the call, e.g. "gs_op") instead of the C function's name. */
void gsr_shim_enter(const char *call);
void gsr_shim_leave(void);

/* Records a failure the shim found itself (abort mode: prints it and aborts the job). */
void gsr_shim_fail(int code, const char *call, const char *message);

/* Takes part in one call of `gsh` without data, so the other ranks' matching call fails
 * with GSR_ERR_REMOTE instead of waiting, then records the failure as gsr_shim_fail. `dom`
 * (a gs_dom) and `k` are the call's as far as the shim knows them (-1 and 0 if not): they
 * pick the method of auto's table that the other ranks' call goes to. */
void gsr_shim_fail_call(struct gs_data *gsh, int code, const char *call, const char *message, int dom, int k);

/* gsr_transfer and gsr_scatter with the lengths a shim knows and C cannot: the number of
 * destinations given (checked against count) and the length of the root's data in values
 * (checked against the counts' sum; counts_count counts on the root). The core checks them
 * with the other arguments, so a mismatch is E-TRANSFER-LENGTHS / E-SG-COUNTS-* on that rank
 * and E-*-REMOTE on the others, never a wait. */
int gsr_shim_transfer(const void *records, size_t count, size_t record_bytes, const int *destinations,
                      size_t destination_count, MPI_Comm comm, int method, void **received, int **sources,
                      size_t *received_count, gsr_transfer_stats *stats);
/* gsr_shim_transfer of tuples with `layout[3]` integers, longs and reals each, which every
 * rank must pass alike (E-TRANSFER-DISAGREE-LAYOUT), not only their size: the crystal
 * router's. */
int gsr_shim_transfer_tuples(const void *records, size_t count, size_t record_bytes, const int *destinations,
                             MPI_Comm comm, const int64_t layout[3], void **received, int **sources,
                             size_t *received_count);
int gsr_shim_scatter(const void *data, size_t data_length, const int64_t *counts, size_t counts_count,
                     size_t value_bytes, int root, MPI_Comm comm, void **block, size_t *count, gsr_tree_stats *stats);

/* Takes part in the other ranks' gsr_transfer on `comm` with a bad argument the shim found
 * itself: they fail with GSR_ERR_REMOTE quoting "gsr: <call>: <message>", and this rank
 * records (abort mode: reports) `code` and `message` under `call`. */
void gsr_shim_fail_transfer(MPI_Comm comm, int code, const char *call, const char *message);

/* MPI_MAX of `*value` (in place) over `comm`: a non-blocking collective polled against this
 * rank's GSR_TIMEOUT (the default if the variable cannot be read; the setup that follows
 * reports it), with errors returned, whatever `comm`'s error handler. For the shims' own
 * agreements on their argument checks. Returns GSR_SUCCESS, else the error code
 * (GSR_ERR_TIMEOUT: a rank never joined) with the message in `message`. */
int gsr_shim_agree_max(MPI_Comm comm, int *value, char *message, size_t message_bytes);

/* 1 if igs request `request` is still in flight (a wait refused on another thread leaves it
 * so), else 0. */
int gsr_shim_request_in_flight(int request);

/* Called by gs_free with each handle it freed (on the freeing thread, after the handle
 * left the registry): a shim that keeps struct gs_data pointers of its own (the Fortran
 * handle tables) forgets this one, so that a pointer C code freed is never used again, nor
 * taken for the live handle whose struct later lands at the same address. One hook per
 * process; setting it again replaces it. */
typedef void (*gsr_shim_free_hook)(const struct gs_data *gsh);
void gsr_shim_set_free_hook(gsr_shim_free_hook hook);

/* Records the success of a C entry point of the shim's own (gs_hf2c): gsr_last_error()
 * reads GSR_SUCCESS until the next failure, as after any successful C call. */
void gsr_shim_succeed(void);

/* The most recent failure, kept until gsr_shim_clear (or gsr_clear_error). */
int gsr_shim_last_failure(void);
const char *gsr_shim_last_failure_message(void);
void gsr_shim_clear(void);

#ifdef __cplusplus
}
#endif

#endif /* GSR_CAPI_SHIM_H */
