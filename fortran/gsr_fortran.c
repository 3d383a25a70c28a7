/* gsr_fortran.c — the C side of the Fortran module `gsr` (fortran/gsr.f90).
 *
 * Owns what the C API cannot express for Fortran callers:
 *   - the Fortran handle space: a handle is an int indexing a table of struct gs_data*,
 *     and a request is an int indexing a table of in-flight non-blocking calls;
 *   - conversion of Fortran MPI communicators (MPI_Comm_f2c) and of the Fortran dom/op
 *     codes (dom 1 double, 2 sint, 3 slong, 4 float; op 1 sum, 2 mult, 3 min, 4 max,
 *     5 bpr) to the gs.h enums;
 *   - the checks only the Fortran calls need (np against the communicator size, k against
 *     the six arrays of gs_many, live handles and requests);
 *   - record transfer, scatter and gather (gsr/transfer.h) for the module's gsr_transfer,
 *     gsr_scatter and gsr_gather: communicator conversion, and the lengths only Fortran
 *     knows passed on to the core's checks (capi/shim.h), so they fail on every rank.
 *
 * Errors follow the C API's mode (gsr_set_error_mode): abort with "gsr: <call>: <what>" on
 * stderr, or record a code and message and return. There is one record, the C library's
 * (capi/shim.h): a failure found here is recorded there, and a failure inside the C library
 * is recorded under the Fortran call's name because every entry point below brackets its
 * C calls with gsr_shim_enter / gsr_shim_leave. The Fortran gsr_last_error reads the most
 * recent failure. Handles start at 1 and are never reused, so a freed handle stays
 * detectable; 0 means "no handle".
 *
 * Threads (MPI_THREAD_MULTIPLE): the tables (table.h) may be read and grown from several
 * threads at once, and the error record is per thread, so each thread may use handles of
 * its own; a handle, and a request, belong to one thread at a time.
 */
#include "gsr/domains.h"
#include "gsr/gs.h"
#include "gsr/transfer.h"
#include "capi/shim.h"
#include "gsr_fortran.h"
#include "table.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GSR_F_MAX_MANY 6

/* ---- errors ----------------------------------------------------------------------- */

/* Reports an error found in this file (abort mode: the job ends here). */
static void fail(int code, const char *call, const char *format, ...) {
  char what[768];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  gsr_shim_fail(code, call, what);
}

/* Around every call into the C library: its failures are recorded under the Fortran
 * call's name. c_call_end returns the call's code (GSR_SUCCESS when it succeeded). */
static void c_call_begin(const char *call) { gsr_shim_enter(call); }

static int c_call_end(void) {
  gsr_shim_leave();
  return gsr_last_error();
}

int gsr_f_last_error(void) { return gsr_shim_last_failure(); }
const char *gsr_f_last_error_message(void) { return gsr_shim_last_failure_message(); }
void gsr_f_clear_error(void) { gsr_shim_clear(); }

/* ---- handle table ------------------------------------------------------------------- */

/* Slot h - 1 holds the struct gs_data * of Fortran handle h (table.h: lookups from any
 * thread, one thread wins a free). */
static struct gsr_table handles = GSR_TABLE_INITIALIZER;

/* Handles whose struct C code freed (gs_free of gs_hf2c's pointer; docs/c-api.md): their
 * slots are empty, so no call reaches the freed struct, nor another handle's struct that
 * later lands at its address; the Fortran gs_free releases each once. A few at most, so a
 * list, read on the error path and by gs_free only. */
static pthread_mutex_t c_freed_lock = PTHREAD_MUTEX_INITIALIZER;
static int *c_freed;
static size_t c_freed_count, c_freed_capacity;

/* Whether handle h is in the list; with `remove`, takes it out. */
static int c_freed_find(int h, int remove) {
  pthread_mutex_lock(&c_freed_lock);
  int found = 0;
  for (size_t i = 0; i < c_freed_count && !found; ++i)
    if (c_freed[i] == h) {
      found = 1;
      if (remove) c_freed[i] = c_freed[--c_freed_count];
    }
  pthread_mutex_unlock(&c_freed_lock);
  return found;
}

/* Out of memory: h reads as freed by the Fortran gs_free, and releasing it fails. */
static void c_freed_add(int h) {
  pthread_mutex_lock(&c_freed_lock);
  if (c_freed_count == c_freed_capacity) {
    const size_t capacity = c_freed_capacity ? 2 * c_freed_capacity : 8;
    int *grown = realloc(c_freed, capacity * sizeof *grown);
    if (grown) {
      c_freed = grown;
      c_freed_capacity = capacity;
    }
  }
  if (c_freed_count < c_freed_capacity) c_freed[c_freed_count++] = h;
  pthread_mutex_unlock(&c_freed_lock);
}

/* gs_free's hook (capi/shim.h): C code freed `gsh`. If a handle holds it (not one the
 * Fortran gs_free is freeing: that slot is held), the handle is listed and its slot emptied,
 * in that order, so that a lookup finding the slot empty finds the handle listed. */
static void forget_freed_struct(const struct gs_data *gsh) {
  const int count = gsr_table_count(&handles);
  for (int i = 0; i < count; ++i) {
    if (gsr_table_get(&handles, i) != gsh) continue;
    void *value = gsr_table_take(&handles, i);
    if (value == gsh) {
      c_freed_add(i + 1);
      gsr_table_release(&handles, i, NULL);
    } else if (value) {
      gsr_table_release(&handles, i, value);
    }
    return;
  }
}

static int add_handle(struct gs_data *gsh) {
  gsr_shim_set_free_hook(forget_freed_struct);
  const int index = gsr_table_append(&handles, gsh);
  return index < 0 ? 0 : index + 1;
}

/* Reports why handle h has no struct behind it. */
static void fail_handle(int h, const char *call) {
  if (h < 1 || h > gsr_table_count(&handles))
    fail(GSR_ERR_STATE, call, "handle %d was never returned by gs_setup", h);
  else if (c_freed_find(h, 0))
    fail(GSR_ERR_STATE, call,
         "the handle's struct gs_data was freed from C (gs_free of gs_hf2c's pointer); gs_free the handle to "
         "release its number");
  else
    fail(GSR_ERR_STATE, call, "handle %d has been freed", h);
}

static struct gs_data *find_handle(int h, const char *call) {
  struct gs_data *gsh = h >= 1 ? gsr_table_get(&handles, h - 1) : NULL;
  if (!gsh) fail_handle(h, call);
  return gsh;
}

/* ---- requests of the non-blocking calls ----------------------------------------------- */

/* igs_many receives an array of pointers, which must outlive the call; each request is a
 * separate allocation, which the C library may point into until the wait. Slot r - 1 of
 * the table holds Fortran request r; numbers of completed requests are reused. */
struct request {
  int c_request;
  void *arrays[GSR_F_MAX_MANY];
};
static struct gsr_table requests = GSR_TABLE_INITIALIZER;

/* A new request and its number, held (invisible to gsr_f_wait) until finish_start; 0 when
 * memory is exhausted. */
static int add_request(struct request **req) {
  *req = calloc(1, sizeof **req);
  if (!*req) return 0;
  const int index = gsr_table_reserve(&requests);
  if (index < 0) {
    free(*req);
    return 0;
  }
  return index + 1;
}

static void drop_request(int r, struct request *req) {
  free(req);
  gsr_table_release(&requests, r - 1, NULL);
}

/* After the C call that started request r: r if it started, else 0 (the number is free again). */
static int finish_start(int r, struct request *req) {
  if (c_call_end() != GSR_SUCCESS) {
    drop_request(r, req);
    return 0;
  }
  gsr_table_release(&requests, r - 1, req);
  return r;
}

/* ---- code conversion ---------------------------------------------------------------- */

/* The Fortran value codes, from gsr/domains.h. */
static int to_dom(int dom, gs_dom *out) {
  switch (dom) {
#define GSR_FORTRAN_DOMAIN(type, domain, name, gs_code, fortran_code) \
  case fortran_code:                                                  \
    *out = gs_code;                                                   \
    return 1;
    GSR_FOR_EACH_DOMAIN(GSR_FORTRAN_DOMAIN)
#undef GSR_FORTRAN_DOMAIN
    default:
      return 0;
  }
}

static int to_op(int op, gs_op *out) {
  switch (op) {
    case 1:
      *out = gs_add;
      return 1;
    case 2:
      *out = gs_mul;
      return 1;
    case 3:
      *out = gs_min;
      return 1;
    case 4:
      *out = gs_max;
      return 1;
    case 5:
      *out = gs_bpr;
      return 1;
    default:
      return 0;
  }
}

/* A bad argument of an operation found here must not leave the other ranks waiting in
 * the exchange: take part in the call without data, then report (capi/shim.h). */
/* dom (a gs_dom, -1 if unknown) and k (0 if unknown) are the call's, as far as known. */
static void fail_operation(struct gs_data *gsh, const char *call, int dom, int k, const char *format, ...) {
  char what[768];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  gsr_shim_fail_call(gsh, GSR_ERR_INVALID_ARGUMENT, call, what, dom, k);
}

/* Converts everything an operation needs; 0 (after reporting) when anything is wrong. */
/* k: the call's components (1 for gs_op). */
static int prepare(int h, int dom, int op, int k, const char *call, struct gs_data **gsh, gs_dom *c_dom, gs_op *c_op) {
  *gsh = find_handle(h, call);
  if (!*gsh) return 0;
  if (!to_dom(dom, c_dom)) {
    fail_operation(*gsh, call, -1, k, "unknown dom code %d (1 = double, 2 = sint, 3 = slong, 4 = float)", dom);
    return 0;
  }
  if (!to_op(op, c_op)) {
    fail_operation(*gsh, call, (int)*c_dom, k, "unknown op code %d (1 = sum, 2 = mult, 3 = min, 4 = max, 5 = bpr)", op);
    return 0;
  }
  return 1;
}

static int check_components(struct gs_data *gsh, int k, gs_dom c_dom, const char *call) {
  if (k >= 1) return 1;
  fail_operation(gsh, call, (int)c_dom, 0, "k = %d, the number of components must be >= 1", k);
  return 0;
}

/* Collects u1..uk into arrays[]; an absent array among the first k is an error. */
static int gather_arrays(struct gs_data *gsh, int k, gs_dom c_dom, void *u1, void *u2, void *u3, void *u4, void *u5,
                         void *u6, void **arrays, const char *call) {
  void *given[GSR_F_MAX_MANY] = {u1, u2, u3, u4, u5, u6};
  if (k < 1 || k > GSR_F_MAX_MANY) {
    fail_operation(gsh, call, (int)c_dom, k, "k = %d, but between 1 and 6 arrays can be passed", k);
    return 0;
  }
  for (int i = 0; i < k; ++i) {
    if (!given[i]) {
      fail_operation(gsh, call, (int)c_dom, k, "k = %d, but array u%d is absent", k, i + 1);
      return 0;
    }
    arrays[i] = given[i];
  }
  return 1;
}

/* ---- communicators ------------------------------------------------------------------ */

static int to_comm(int fcomm, MPI_Comm *out, const char *call) {
  *out = MPI_Comm_f2c((MPI_Fint)fcomm);
  if (*out == MPI_COMM_NULL) {
    fail(GSR_ERR_INVALID_ARGUMENT, call, "the communicator is MPI_COMM_NULL");
    return 0;
  }
  return 1;
}

/* ---- setup, unique, free ------------------------------------------------------------ */

/* Collective: every rank passes its own verdict on its arguments (`local`, with `what` when
 * it is not GSR_SUCCESS) before a collective call starts, so no rank is left waiting in it;
 * a rank that never comes leaves the others E-SETUP-TIMEOUT after GSR_TIMEOUT seconds.
 * Returns 1 when every rank's arguments are fine, else 0 after reporting. */
static int agree_on_arguments(MPI_Comm comm, int local, const char *what, const char *call) {
  if (local != GSR_SUCCESS && gsr_get_error_mode() == GSR_ERRORS_ABORT) {
    fail(local, call, "%s", what); /* aborts the job; the other ranks go with it */
    return 0;
  }
  /* Polled against GSR_TIMEOUT like the C setup's own first step: a rank that skips the
   * call, or comes later than the others' GSR_TIMEOUT, costs them E-SETUP-TIMEOUT. */
  int any = local;
  char agreement[320] = "";
  const int agreed = gsr_shim_agree_max(comm, &any, agreement, sizeof agreement);
  if (agreed != GSR_SUCCESS) {
    if (local != GSR_SUCCESS)
      fail(local, call, "%s", what); /* the more telling error */
    else
      fail(agreed, call, "%s", agreement);
    return 0;
  }
  if (local != GSR_SUCCESS) {
    fail(local, call, "%s", what);
    return 0;
  }
  if (any != GSR_SUCCESS) {
    fail(GSR_ERR_REMOTE, call, "another rank found an error in its arguments");
    return 0;
  }
  return 1;
}

/* Returns the new Fortran handle, or 0 after an error. The argument checks are agreed on
 * by all ranks before the collective setup starts, so no rank is left waiting in it. */
int gsr_f_setup(const slong *id, int n, int fcomm, int check_np, int np, int unique, int method, int verbose,
                const char *call) {
  MPI_Comm mpi_comm;
  if (!to_comm(fcomm, &mpi_comm, call)) return 0;

  int size = 0;
  if (MPI_Comm_size(mpi_comm, &size) != MPI_SUCCESS) {
    fail(GSR_ERR_MPI, call, "MPI_Comm_size failed on the communicator");
    return 0;
  }

  char what[256] = "";
  int local = GSR_SUCCESS;
  if (check_np && np != size) {
    local = GSR_ERR_INVALID_ARGUMENT;
    snprintf(what, sizeof what, "np = %d, but the communicator has %d rank%s", np, size, size == 1 ? "" : "s");
  } else if (n < 0) {
    local = GSR_ERR_INVALID_ARGUMENT;
    snprintf(what, sizeof what, "n = %d is negative", n);
  } else if (method < gs_auto || method > (int)gs_neighbor) {
    local = GSR_ERR_INVALID_ARGUMENT;
    snprintf(what, sizeof what,
             "unknown method code %d (0 = auto, 1 = pairwise, 2 = crystal router, "
             "3 = allreduce, 4 = neighbor)",
             method);
  }

  if (!agree_on_arguments(mpi_comm, local, what, call)) return 0;

  /* comm_init's duplicate is polled too (a rank that gave up on the agreement never joins
   * it); its failure is the call's. */
  struct comm c = {0, 0, MPI_COMM_NULL};
  c_call_begin(call);
  comm_init(&c, mpi_comm);
  struct gs_data *gsh = c.c == MPI_COMM_NULL ? NULL : gs_setup(id, (uint)n, &c, unique, (gs_method)method, verbose);
  const int failed = c_call_end();
  comm_free(&c);
  if (failed || !gsh) {
    if (!failed) fail(GSR_ERR_INTERNAL, call, "gs_setup returned no handle");
    return 0;
  }
  const int h = add_handle(gsh);
  if (!h) {
    gs_free(gsh);
    fail(GSR_ERR_INTERNAL, call, "out of memory for the handle table");
  }
  return h;
}

void gsr_f_unique(slong *id, int n, int fcomm) {
  const char *call = "gs_unique";
  MPI_Comm mpi_comm;
  if (!to_comm(fcomm, &mpi_comm, call)) return;
  char what[64] = "";
  if (n < 0) snprintf(what, sizeof what, "n = %d is negative", n);
  if (!agree_on_arguments(mpi_comm, n < 0 ? GSR_ERR_INVALID_ARGUMENT : GSR_SUCCESS, what, call)) return;
  struct comm c = {0, 0, MPI_COMM_NULL};
  c_call_begin(call);
  comm_init(&c, mpi_comm);
  if (c.c != MPI_COMM_NULL) gs_unique(id, (uint)n, &c);
  c_call_end();
  comm_free(&c);
}

/* The handle is taken out of the table while gs_free runs, so of two threads freeing it
 * one finds it freed; a refused free (requests in flight) puts it back. */
void gsr_f_free(int h) {
  const char *call = "gs_free";
  struct gs_data *gsh = h >= 1 ? gsr_table_take(&handles, h - 1) : NULL;
  if (!gsh) {
    if (h >= 1 && c_freed_find(h, 1))
      gsr_shim_succeed(); /* C code freed the struct: only the number was left to release */
    else
      fail_handle(h, call);
    return;
  }
  c_call_begin(call);
  gs_free(gsh);
  gsr_table_release(&handles, h - 1, c_call_end() == GSR_SUCCESS ? NULL : gsh);
}

struct gs_data *gsr_f_handle_data(int h, const char *call) {
  return find_handle(h, call);
}

int gsr_f_progress(void) {
  c_call_begin("gsr_progress");
  const int done = gsr_progress();
  c_call_end();
  return done;
}

const char *gsr_f_method_name(int h) {
  const char *call = "gsr_method_name";
  struct gs_data *gsh = find_handle(h, call);
  if (!gsh) return "";
  c_call_begin(call);
  const char *name = gsr_method_name(gsh);
  c_call_end();
  return name ? name : "";
}

/* ---- blocking operations ------------------------------------------------------------ */

void gsr_f_op(int h, void *u, int dom, int op, int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  if (!prepare(h, dom, op, 1, call, &gsh, &c_dom, &c_op)) return;
  c_call_begin(call);
  gs(u, c_dom, c_op, transpose != 0, gsh, NULL);
  c_call_end();
}

void gsr_f_vec(int h, void *u, int k, int dom, int op, int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  if (!prepare(h, dom, op, k, call, &gsh, &c_dom, &c_op)) return;
  if (!check_components(gsh, k, c_dom, call)) return;
  c_call_begin(call);
  gs_vec(u, (unsigned)k, c_dom, c_op, transpose != 0, gsh, NULL);
  c_call_end();
}

void gsr_f_many(int h, void *u1, void *u2, void *u3, void *u4, void *u5, void *u6, int k, int dom, int op,
                int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  void *arrays[GSR_F_MAX_MANY];
  if (!prepare(h, dom, op, k, call, &gsh, &c_dom, &c_op)) return;
  if (!gather_arrays(gsh, k, c_dom, u1, u2, u3, u4, u5, u6, arrays, call)) return;
  c_call_begin(call);
  gs_many(arrays, (unsigned)k, c_dom, c_op, transpose != 0, gsh, NULL);
  c_call_end();
}

/* ---- non-blocking operations: each returns a request (0 after an error) ------------- */

int gsr_f_iop(int h, void *u, int dom, int op, int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  if (!prepare(h, dom, op, 1, call, &gsh, &c_dom, &c_op)) return 0;
  struct request *req;
  const int r = add_request(&req);
  if (!r) {
    fail(GSR_ERR_INTERNAL, call, "out of memory for the request table");
    return 0;
  }
  c_call_begin(call);
  igs(u, c_dom, c_op, transpose != 0, gsh, NULL, &req->c_request);
  return finish_start(r, req);
}

int gsr_f_ivec(int h, void *u, int k, int dom, int op, int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  if (!prepare(h, dom, op, k, call, &gsh, &c_dom, &c_op)) return 0;
  if (!check_components(gsh, k, c_dom, call)) return 0;
  struct request *req;
  const int r = add_request(&req);
  if (!r) {
    fail(GSR_ERR_INTERNAL, call, "out of memory for the request table");
    return 0;
  }
  c_call_begin(call);
  igs_vec(u, (unsigned)k, c_dom, c_op, transpose != 0, gsh, NULL, &req->c_request);
  return finish_start(r, req);
}

int gsr_f_imany(int h, void *u1, void *u2, void *u3, void *u4, void *u5, void *u6, int k, int dom, int op,
                int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  void *arrays[GSR_F_MAX_MANY];
  if (!prepare(h, dom, op, k, call, &gsh, &c_dom, &c_op)) return 0;
  if (!gather_arrays(gsh, k, c_dom, u1, u2, u3, u4, u5, u6, arrays, call)) return 0;
  struct request *req;
  const int r = add_request(&req);
  if (!r) {
    fail(GSR_ERR_INTERNAL, call, "out of memory for the request table");
    return 0;
  }
  memcpy(req->arrays, arrays, sizeof arrays);
  c_call_begin(call);
  igs_many(req->arrays, (unsigned)k, c_dom, c_op, transpose != 0, gsh, NULL, &req->c_request);
  return finish_start(r, req);
}

/* The request is taken out of the table while gs_wait runs, so of two threads waiting for
 * it the second finds it held and is refused as the C API refuses it (in use by another
 * thread: the thread that started it may retry), not told that it is not in flight. It is
 * dropped after the wait, failed or not, unless the C request is still in flight (a wait
 * on a thread other than the one that started it is refused): then it stays, to be waited
 * for on the right thread. */
void gsr_f_wait(int r, const char *call) {
  int held = 0;
  struct request *req = r >= 1 ? gsr_table_take_or_held(&requests, r - 1, &held) : NULL;
  if (!req) {
    if (held)
      fail(GSR_ERR_STATE, call,
           "request %d is in use by another thread (its wait for it, or a start, is under way); "
           "wait for a request on the thread that started it",
           r);
    else
      fail(GSR_ERR_STATE, call, "request %d is not in flight (never started or already waited on)", r);
    return;
  }
  c_call_begin(call);
  gs_wait(req->c_request);
  if (c_call_end() != GSR_SUCCESS && gsr_shim_request_in_flight(req->c_request))
    gsr_table_release(&requests, r - 1, req);
  else
    drop_request(r, req);
}

/* ---- record transfer, scatter and gather (gsr/transfer.h) ---------------------------- */

void gsr_f_fail_transfer(MPI_Comm comm, const char *call, const char *what) {
  gsr_shim_fail_transfer(comm, GSR_ERR_INVALID_ARGUMENT, call, what);
}

/* `count` records of `record_bytes` and `destination_count` destinations: the transfer's
 * own checks compare the two, on every rank (E-TRANSFER-LENGTHS). */
int gsr_f_transfer(const void *records, int64_t count, int64_t record_bytes, const int *destinations,
                   int64_t destination_count, int fcomm, int method, void **received, int **sources,
                   int64_t *received_count, gsr_transfer_stats *stats, const char *call) {
  *received = NULL;
  *sources = NULL;
  *received_count = 0;
  MPI_Comm comm;
  if (!to_comm(fcomm, &comm, call)) return gsr_f_last_error();
  size_t got = 0;
  c_call_begin(call);
  gsr_shim_transfer(records, (size_t)count, (size_t)record_bytes, destinations, (size_t)destination_count, comm, method,
                    received, sources, &got, stats);
  const int code = c_call_end();
  *received_count = (int64_t)got;
  return code;
}

/* The root's counts (counts_count of them) and the length of its data (data_count values)
 * are checked by the scatter itself, on every rank (E-SG-COUNTS-NUMBER, E-SG-COUNTS-SUM). */
int gsr_f_scatter(const void *data, int64_t data_count, const int64_t *counts, int64_t counts_count,
                  int64_t value_bytes, int root, int fcomm, void **block, int64_t *count, gsr_tree_stats *stats,
                  const char *call) {
  *block = NULL;
  *count = 0;
  MPI_Comm comm;
  if (!to_comm(fcomm, &comm, call)) return gsr_f_last_error();
  size_t got = 0;
  c_call_begin(call);
  gsr_shim_scatter(data, (size_t)data_count, counts, (size_t)counts_count, (size_t)value_bytes, root, comm, block, &got,
                   stats);
  const int code = c_call_end();
  *count = (int64_t)got;
  return code;
}

/* *ranks: the number of counts returned (the communicator's size on the root, else 0). */
int gsr_f_gather(const void *data, int64_t count, int64_t value_bytes, int root, int fcomm, void **blocks,
                 int64_t **counts, int *ranks, gsr_tree_stats *stats, const char *call) {
  *blocks = NULL;
  *counts = NULL;
  *ranks = 0;
  MPI_Comm comm;
  if (!to_comm(fcomm, &comm, call)) return gsr_f_last_error();
  c_call_begin(call);
  gsr_gather(data, count, (size_t)value_bytes, root, comm, blocks, counts, stats);
  const int code = c_call_end();
  if (code == GSR_SUCCESS && *counts) MPI_Comm_size(comm, ranks);
  return code;
}
