/* gsr/gs.h — the C interface, with the C calls, types and enumeration values of the
 * gather-scatter (gs) library of Nek5000 (docs/c-api.md says what is covered and tested).
 *
 * Each rank passes a local-to-global map id[0..n). Entries with the same |id| on all
 * ranks form a group; id == 0 takes no part; id < 0 is "flagged".
 *   gs(u, dom, op, transpose, gsh, buf) replaces, for every group, the entries that
 *   receive with the reduction (op) of the entries that contribute:
 *     no flagged entry in the group  : all contribute, all receive         (Q Q^T)
 *     transpose == 0                 : unflagged contribute, all receive   (Q, scatter)
 *     transpose != 0                 : all contribute, unflagged receive   (Q^T, gather)
 *   A group with nothing contributing receives the identity of op (0, 1, +max, -max, 0).
 *
 * Worked example (two spectral elements of order 2 on two ranks; Table 1 (ids and u) of
 * docs/concepts.md, which also gives the results of every op as Tables 2-4):
 *   rank 0: id = {1,2,3, 4,5,6, 7,8,9}     rank 1: id = {3,10,11, 6,12,13, 9,14,15}
 *   gs(u, gs_double, gs_add, 0, h, NULL) sums the two copies of nodes 3, 6 and 9 and
 *   writes the sum into both; every other entry is left as it was.
 *
 * Errors: by default a bad call prints "gsr: <function>: <what is wrong>" on stderr and
 * aborts the job through MPI_Abort (the original library's behaviour, since these calls
 * return nothing). After gsr_set_error_mode(GSR_ERRORS_RETURN) a bad call instead returns
 * (gs_setup returns NULL) and gsr_last_error() / gsr_last_error_message() say what went
 * wrong; the data arrays are then left unchanged where the error was found before any
 * exchange. Collective calls report an error on every rank of the communicator.
 */
/* The calls and types shared with gsr/gslib.h sit in the first block, guarded on their own,
 * so gs.h and gslib.h may be included together in any order; gsr's own calls and codes sit
 * in the second block, which gslib.h leaves out. */
#ifndef GSR_GS_COMMON_H
#define GSR_GS_COMMON_H

#include <limits.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The integer names of the original's types.h, in its default build (global ids long long).
 * The original defines them as macros; here they are typedefs, skipped where the name is
 * already a macro (code that defines uint or slong itself). glibc's <sys/types.h> (included
 * above) already typedefs uint as unsigned int when its BSD/GNU names are on (__USE_MISC);
 * a second typedef would be an error in C89/C99, so gs.h then uses glibc's. */
#if !defined(uint) && !(defined(__GLIBC__) && defined(__USE_MISC))
typedef unsigned int uint;
#endif
#ifndef sint
typedef int sint;
#endif
#ifndef slong
#if defined(__GNUC__) && !defined(__cplusplus)
__extension__ /* long long is C99; this keeps gcc/clang -std=c89 -pedantic quiet */
#endif
    typedef long long slong;
#endif

struct comm {
  uint id, np; /* this rank, number of ranks */
  MPI_Comm c;  /* a duplicate owned by the struct */
};
void comm_init(struct comm *c, MPI_Comm mpi_comm);
void comm_free(struct comm *c);

/* A caller-owned scratch buffer (the original's mem.h). gsr keeps its buffers in the
 * handle, so a buffer passed to gs is accepted and left alone; NULL is always fine. */
typedef struct {
  size_t n, max;
  void *ptr;
} buffer;
void buffer_init(buffer *b, size_t max);
void buffer_free(buffer *b);

/* A C caller may pass any int where these enumerations are expected, and the calls reject
 * unknown codes. In C++ an enumeration without a fixed underlying type cannot even hold
 * such a code (reading it is undefined), so there they get int as their underlying type. */
#ifdef __cplusplus
#define GSR_ENUM_BASE : int
#else
#define GSR_ENUM_BASE
#endif
/* C types: double, float, int, long, long long. sint is int and slong is long long. */
typedef enum GSR_ENUM_BASE { gs_double, gs_float, gs_int, gs_long, gs_long_long, gs_dom_n } gs_dom;
#define gs_sint gs_int
#define gs_slong gs_long_long
typedef enum GSR_ENUM_BASE { gs_add, gs_mul, gs_min, gs_max, gs_bpr, gs_op_n } gs_op;
/* gs_neighbor (4) is gsr's own method, after gslib's codes: the pairwise messages in one MPI
 * neighbourhood collective per call (docs/methods.md). */
typedef enum GSR_ENUM_BASE { gs_auto, gs_pairwise, gs_crystal_router, gs_all_reduce, gs_neighbor } gs_method;
#undef GSR_ENUM_BASE

struct gs_data;

struct gs_data *gs_setup(const slong *id, uint n, const struct comm *comm, int unique, gs_method method, int verbose);
void gs(void *u, gs_dom dom, gs_op op, unsigned transpose, struct gs_data *gsh, buffer *buf);
void gs_vec(void *u, unsigned k, gs_dom dom, gs_op op, unsigned transpose, struct gs_data *gsh, buffer *buf);
void gs_many(void *const *u, unsigned k, gs_dom dom, gs_op op, unsigned transpose, struct gs_data *gsh, buffer *buf);

/* Non-blocking forms: start, do local work, then gs_wait(*handle). The arrays must not be
 * touched (at shared entries) until gs_wait returns. */
void igs(void *u, gs_dom dom, gs_op op, unsigned transpose, struct gs_data *gsh, buffer *buf, int *handle);
void igs_vec(void *u, unsigned k, gs_dom dom, gs_op op, unsigned transpose, struct gs_data *gsh, buffer *buf,
             int *handle);
void igs_many(void *const *u, unsigned k, gs_dom dom, gs_op op, unsigned transpose, struct gs_data *gsh, buffer *buf,
              int *handle);
void gs_wait(int handle);
/* Advances the calls in flight that gs_wait on this thread would advance (this thread's at
 * MPI_THREAD_MULTIPLE, the process's below it) without blocking (gsr, not gslib): call it
 * now and then from long work between igs* and gs_wait so that the messages travel
 * meanwhile. Returns 1 when no call waits for other ranks any more, else 0 (also on error). */
int gsr_progress(void);

void gs_unique(slong *id, uint n, const struct comm *comm);
void gs_free(struct gs_data *gsh);

/* gslib's pairwise statistics: the number of ranks this rank receives from in gslib's
 * pairwise method for the handle's ids (each holding one of this rank's shared ids
 * unflagged), and how many ids from each, in ascending rank order (n must hold the first
 * count). Local calls; they report the pairwise method's figures whatever method the handle
 * uses. */
void pw_data_nmsg(struct gs_data *gsh, int *n);
void pw_data_size(struct gs_data *gsh, int *n);
/* The struct gs_data * behind a handle of gslib's Fortran entry points (fgslib_gs_setup,
 * gs_setup_ of libgsr_fortran, which defines this function); NULL after an error. */
struct gs_data *gs_hf2c(const sint gsh);

#ifdef __cplusplus
}
#endif
#endif /* GSR_GS_COMMON_H */

/* ---- gsr extensions (not in gslib.h, which defines GSR_GSLIB_INCLUDING_GS) ---------- */
#if !defined(GSR_GS_H) && !defined(GSR_GSLIB_INCLUDING_GS)
#define GSR_GS_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
  GSR_SUCCESS = 0,
  GSR_ERR_INVALID_ARGUMENT = 1, /* bad code, length, NULL pointer, op not fit for domain */
  GSR_ERR_MISMATCH = 2,         /* ranks disagree about one collective call's arguments */
  GSR_ERR_REMOTE = 3,           /* another rank failed in a collective step */
  GSR_ERR_STATE = 4,            /* freed/foreign handle, handle busy with a request */
  GSR_ERR_IO = 5,               /* file missing, unreadable or malformed */
  GSR_ERR_MPI = 6,              /* an MPI call failed */
  GSR_ERR_INTERNAL = 7,
  GSR_ERR_TIMEOUT = 8 /* a call waited longer than GSR_TIMEOUT seconds for other ranks */
};
enum { GSR_ERRORS_ABORT = 0, GSR_ERRORS_RETURN = 1 };

void gsr_set_error_mode(int mode);
int gsr_get_error_mode(void);
int gsr_last_error(void);                 /* code of the most recent call; GSR_SUCCESS if it succeeded */
const char *gsr_last_error_message(void); /* "" if none */
void gsr_clear_error(void);

/* Method in use by a handle ("pairwise", "crystal_router", "allreduce", "neighbor"). */
const char *gsr_method_name(const struct gs_data *gsh);

#ifdef __cplusplus
}
#endif

/* C++ callers may also pass ids as long, i.e. std::int64_t where long has 64 bits: gsr's
 * slong before it became gslib's long long. Templates, so that gs_setup(nullptr, 0, ...)
 * still picks the C call. */
#if defined(__cplusplus) && LONG_MAX == LLONG_MAX
#include <type_traits>
namespace gsr {
namespace capi {
struct gs_data *setup_long_ids(const long *id, uint n, const struct comm *comm, int unique, gs_method method,
                               int verbose);
void unique_long_ids(long *id, uint n, const struct comm *comm);
} /* namespace capi */
} /* namespace gsr */
template <class Id, typename std::enable_if<std::is_same<Id, long>::value, int>::type = 0>
inline struct gs_data *gs_setup(const Id *id, uint n, const struct comm *comm, int unique, gs_method method,
                                int verbose) {
  return gsr::capi::setup_long_ids(id, n, comm, unique, method, verbose);
}
template <class Id, typename std::enable_if<std::is_same<Id, long>::value, int>::type = 0>
inline void gs_unique(Id *id, uint n, const struct comm *comm) {
  gsr::capi::unique_long_ids(id, n, comm);
}
#endif
#endif /* GSR_GS_H */
