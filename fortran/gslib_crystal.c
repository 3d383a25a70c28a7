/* gslib_crystal.c — gslib's Fortran crystal-router entry points (gslib's src/fcrystal.c), for
 * code that moves tuples between ranks without the module `gsr` (Nek5000's core, F77 with
 * `include 'mpif.h'`): crystal_setup, crystal_ituple_transfer, crystal_tuple_transfer,
 * crystal_ituple_sort, crystal_tuple_sort, crystal_free.
 *
 * Every routine exists twice, in gfortran's naming: with Nek5000's prefix
 * (fgslib_crystal_setup_) and without it (crystal_setup_). Arguments are gslib's, all by
 * reference: handles, counts, column numbers and keys are default integers (sint), long
 * entries integer*8 (slong), real entries real*8, comm an MPI_Fint.
 *
 * Owns the crystal handles (from 0, never reused, each holding its communicator) and the
 * conversion between Fortran tuples and gsr_transfer's records: a tuple travels as one
 * record (its integers, longs and reals back to back), its destination beside it. Argument
 * errors are made collective by taking part in the transfer (gsr_f_fail_transfer, shared
 * with the module's side), so no rank is left waiting. docs/fortran.md lists what differs
 * from gslib.
 */
#include "gsr/gs.h"
#include "gsr/transfer.h"
#include "capi/shim.h"
#include "gsr_fortran.h"
#include "table.h"

#include <limits.h>
#include <stdint.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the crystal handles -------------------------------------------------------------- */

/* Slot h holds the router of Fortran handle h, empty once freed (table.h: read and grown
 * from several threads at once; a handle belongs to one thread at a time). */
struct router {
  MPI_Comm comm;
};
static struct gsr_table routers = GSR_TABLE_INITIALIZER;

/* The new handle, or -1 when memory is exhausted. */
static int add_router(MPI_Comm comm) {
  struct router *router = malloc(sizeof *router);
  if (!router) return -1;
  router->comm = comm;
  const int h = gsr_table_append(&routers, router);
  if (h < 0) free(router);
  return h;
}

/* ---- errors ------------------------------------------------------------------------- */

/* A bad argument of a call that sends nothing (a sort, a handle). */
static void report(const char *call, int code, const char *format, ...) {
  char what[512];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  gsr_shim_fail(code, call, what);
}

/* Reports why handle h has no router behind it. */
static void fail_router(sint h, const char *call) {
  if (h < 0 || h >= gsr_table_count(&routers))
    report(call, GSR_ERR_STATE, "handle %d was never returned by crystal_setup", (int)h);
  else
    report(call, GSR_ERR_STATE, "handle %d has been freed", (int)h);
}

static const struct router *find_router(sint h, const char *call) {
  const struct router *router = gsr_table_get(&routers, (int)h);
  if (!router) fail_router(h, call);
  return router;
}

/* A transfer on `comm` of `count` tuples of `layout` (integers, longs, reals each), which
 * every rank must pass alike; 1 on success (the outputs are malloc'd). */
static int transfer(const char *call, MPI_Comm comm, const void *records, size_t count, size_t record_bytes,
                    const int64_t layout[3], const int *destinations, void **received, int **sources,
                    size_t *received_count) {
  gsr_shim_enter(call);
  gsr_shim_transfer_tuples(records, count, record_bytes, destinations, comm, layout, received, sources, received_count);
  gsr_shim_leave();
  return gsr_last_error() == GSR_SUCCESS;
}

/* ---- setup and free ------------------------------------------------------------------ */

/* Collective, as gslib's (which duplicates the communicator): the ranks agree on np through
 * an empty transfer, so a wrong np anywhere is an error everywhere. -1 after an error. */
static void run_setup(sint *handle, const MPI_Fint *fcomm, const sint *np) {
  const char *call = "crystal_setup";
  *handle = -1;
  const MPI_Comm comm = MPI_Comm_f2c(*fcomm);
  int size = 0;
  if (comm == MPI_COMM_NULL || MPI_Comm_size(comm, &size) != MPI_SUCCESS) {
    report(call, GSR_ERR_INVALID_ARGUMENT, "the communicator is not valid");
    return;
  }
  if (*np != size) {
    char what[128];
    snprintf(what, sizeof what, "np = %d, but the communicator has %d rank%s", (int)*np, size, size == 1 ? "" : "s");
    gsr_f_fail_transfer(comm, call, what);
    return;
  }
  void *received = NULL;
  int *sources = NULL;
  size_t count = 0;
  const int64_t no_tuples[3] = {0, 0, 0};
  if (!transfer(call, comm, NULL, 0, 1, no_tuples, NULL, &received, &sources, &count)) return;
  const int h = add_router(comm);
  if (h < 0) {
    report(call, GSR_ERR_INTERNAL, "out of memory for the handle table");
    return;
  }
  *handle = h;
}

/* Of two threads freeing the same handle, one takes it and the other finds it freed. */
static void run_free(const sint *handle) {
  struct router *router = gsr_table_take(&routers, (int)*handle);
  if (!router) {
    fail_router(*handle, "crystal_free");
    return;
  }
  free(router);
  gsr_table_release(&routers, (int)*handle, NULL);
}

/* ---- transfer ----------------------------------------------------------------------- */

/* The tuples are columns: tuple j (from 0) is vi[j*mi .. j*mi+mi-1], vl[j*ml ..] and
 * vr[j*mr ..]; vi[j*mi + kp-1] is its destination, replaced by its source on arrival.
 * `m_name` is what the caller calls mi ("m" for crystal_ituple_transfer). */
static void run_transfer(const char *call, const char *m_name, const sint *handle, sint *n, const sint *max, sint *vi,
                         const sint *mi, slong *vl, const sint *ml, double *vr, const sint *mr, const sint *kp) {
  const struct router *router = find_router(*handle, call);
  if (!router) return;
  int size = 0;
  MPI_Comm_size(router->comm, &size);

  char what[256] = "";
  if (*mi < 1)
    snprintf(what, sizeof what, "%s = %d, but a tuple needs at least one integer (its destination)", m_name, (int)*mi);
  else if (*ml < 0 || *mr < 0)
    snprintf(what, sizeof what, "%s = %d is negative", *ml < 0 ? "ml" : "mr", (int)(*ml < 0 ? *ml : *mr));
  else if (*kp < 1 || *kp > *mi)
    snprintf(what, sizeof what, "kp = %d is not an integer column of the tuples (1 to %d)", (int)*kp, (int)*mi);
  else if (*n < 0)
    snprintf(what, sizeof what, "n = %d is negative", (int)*n);
  else if (*n > *max)
    snprintf(what, sizeof what, "n = %d tuples to send, more than max = %d", (int)*n, (int)*max);
  else
    for (sint j = 0; j < *n; ++j) {
      const sint to = vi[(size_t)j * (size_t)*mi + (size_t)(*kp - 1)];
      if (to < 0 || to >= size) {
        snprintf(what, sizeof what,
                 "tuple %d goes to rank %d (its column kp = %d), which is not a rank of the "
                 "communicator (0 to %d)",
                 (int)(j + 1), (int)to, (int)*kp, size - 1);
        break;
      }
    }
  if (what[0]) {
    gsr_f_fail_transfer(router->comm, call, what);
    return;
  }

  const size_t ints = (size_t)*mi, longs = (size_t)*ml, reals = (size_t)*mr;
  const size_t record = ints * sizeof(sint) + longs * sizeof(slong) + reals * sizeof(double);
  const size_t count = (size_t)*n;
  if (record != 0 && count > SIZE_MAX / record) {
    char message[128];
    snprintf(message, sizeof message, "%zu tuples of %zu bytes are more bytes than memory can hold", count, record);
    gsr_shim_fail_transfer(router->comm, GSR_ERR_INVALID_ARGUMENT, call, message);
    return;
  }
  char *records = count ? malloc(count * record) : NULL;
  int *destinations = count ? malloc(count * sizeof *destinations) : NULL;
  if (count && (!records || !destinations)) {
    free(records);
    free(destinations);
    char message[128];
    snprintf(message, sizeof message, "out of memory for %zu tuples of %zu bytes", count, record);
    gsr_shim_fail_transfer(router->comm, GSR_ERR_INTERNAL, call, message);
    return;
  }
  const size_t long_offset = ints * sizeof(sint), real_offset = long_offset + longs * sizeof(slong);
  for (size_t j = 0; j < count; ++j) {
    char *at = records + j * record;
    memcpy(at, vi + j * ints, ints * sizeof(sint));
    if (longs) memcpy(at + long_offset, vl + j * longs, longs * sizeof(slong));
    if (reals) memcpy(at + real_offset, vr + j * reals, reals * sizeof(double));
    destinations[j] = vi[j * ints + (size_t)(*kp - 1)];
  }

  void *received = NULL;
  int *sources = NULL;
  size_t arrived = 0;
  const int64_t layout[3] = {(int64_t)ints, (int64_t)longs, (int64_t)reals};
  const int ok =
      transfer(call, router->comm, records, count, record, layout, destinations, &received, &sources, &arrived);
  free(records);
  free(destinations);
  if (!ok) return;

  /* Never more than max tuples are written; n says how many arrived, as in gslib. */
  const size_t kept = arrived < (size_t)*max ? arrived : (size_t)*max;
  for (size_t j = 0; j < kept; ++j) {
    const char *at = (const char *)received + j * record;
    memcpy(vi + j * ints, at, ints * sizeof(sint));
    if (longs) memcpy(vl + j * longs, at + long_offset, longs * sizeof(slong));
    if (reals) memcpy(vr + j * reals, at + real_offset, reals * sizeof(double));
    vi[j * ints + (size_t)(*kp - 1)] = sources[j];
  }
  free(received);
  free(sources);
  *n = arrived > (size_t)INT_MAX ? INT_MAX : (sint)arrived;
  if (arrived > kept)
    report(call, GSR_ERR_INVALID_ARGUMENT,
           "%zu tuples arrived, more than max = %d: the first %d were kept, n is set to %zu", arrived, (int)*max,
           (int)*max, arrived);
}

static void run_ituple_transfer(const sint *handle, sint *tuples, const sint *m, sint *n, const sint *max,
                                const sint *kp) {
  const sint none = 0;
  run_transfer("crystal_ituple_transfer", "m", handle, n, max, tuples, m, NULL, &none, NULL, &none, kp);
}

static void run_tuple_transfer(const sint *handle, sint *n, const sint *max, sint *vi, const sint *mi, slong *vl,
                               const sint *ml, double *vr, const sint *mr, const sint *kp) {
  run_transfer("crystal_tuple_transfer", "mi", handle, n, max, vi, mi, vl, ml, vr, mr, kp);
}

/* ---- sort --------------------------------------------------------------------------- */

/* The keys of a sort: key k (from 1) is integer column k when k <= mi, else long column
 * k - mi. */
struct sort_keys {
  const sint *vi;
  const slong *vl;
  size_t mi, ml;
  const sint *keys;
  int nkey;
};

static int compare_tuples(const struct sort_keys *s, size_t a, size_t b) {
  for (int k = 0; k < s->nkey; ++k) {
    const size_t column = (size_t)s->keys[k] - 1;
    if (column < s->mi) {
      const sint x = s->vi[a * s->mi + column], y = s->vi[b * s->mi + column];
      if (x != y) return x < y ? -1 : 1;
    } else {
      const slong x = s->vl[a * s->ml + column - s->mi], y = s->vl[b * s->ml + column - s->mi];
      if (x != y) return x < y ? -1 : 1;
    }
  }
  return 0;
}

/* Stable merge sort of order[0..n) by the keys, with scratch of n entries. */
static void merge_sort(const struct sort_keys *s, size_t *order, size_t *scratch, size_t n) {
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = lo + width < n ? lo + width : n;
      const size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t i = lo, j = mid, out = lo;
      while (i < mid && j < hi) scratch[out++] = compare_tuples(s, order[j], order[i]) < 0 ? order[j++] : order[i++];
      while (i < mid) scratch[out++] = order[i++];
      while (j < hi) scratch[out++] = order[j++];
    }
    memcpy(order, scratch, n * sizeof *order);
  }
}

/* Puts the tuples of one array (columns of `width` bytes) in `order`. */
static int permute(void *columns, size_t width, const size_t *order, size_t n) {
  if (width == 0 || n == 0) return 1;
  char *copy = malloc(n * width);
  if (!copy) return 0;
  for (size_t j = 0; j < n; ++j) memcpy(copy + j * width, (char *)columns + order[j] * width, width);
  memcpy(columns, copy, n * width);
  free(copy);
  return 1;
}

static void run_sort(const char *call, const char *m_name, const sint *handle, const sint *n, sint *vi, const sint *mi,
                     slong *vl, const sint *ml, double *vr, const sint *mr, const sint *keys, const sint *nkey) {
  if (!find_router(*handle, call)) return;
  if (*nkey <= 0) return; /* nothing to sort by, as in gslib */
  if (*n < 0) {
    report(call, GSR_ERR_INVALID_ARGUMENT, "n = %d is negative", (int)*n);
    return;
  }
  if (*mi < 0 || *ml < 0 || *mr < 0) {
    const char *which = *mi < 0 ? m_name : *ml < 0 ? "ml" : "mr";
    report(call, GSR_ERR_INVALID_ARGUMENT, "%s = %d is negative", which, (int)(*mi < 0 ? *mi : *ml < 0 ? *ml : *mr));
    return;
  }
  const sint columns = *mi + *ml;
  for (sint k = 0; k < *nkey; ++k)
    if (keys[k] < 1 || keys[k] > columns) {
      if (*ml > 0 || *mr > 0)
        report(call, GSR_ERR_INVALID_ARGUMENT,
               "key(%d) = %d is not a column to sort by (1 to %d: vi 1 to %d, vl %d to %d; "
               "reals cannot be keys)",
               (int)(k + 1), (int)keys[k], (int)columns, (int)*mi, (int)*mi + 1, (int)columns);
      else
        report(call, GSR_ERR_INVALID_ARGUMENT, "key(%d) = %d is not a column of the tuples (1 to %d)", (int)(k + 1),
               (int)keys[k], (int)columns);
      return;
    }

  const size_t count = (size_t)*n;
  if (count < 2) return;
  size_t *order = malloc(2 * count * sizeof *order);
  if (!order) {
    report(call, GSR_ERR_INTERNAL, "out of memory to sort %zu tuples", count);
    return;
  }
  for (size_t j = 0; j < count; ++j) order[j] = j;
  const struct sort_keys s = {vi, vl, (size_t)*mi, (size_t)*ml, keys, (int)*nkey};
  merge_sort(&s, order, order + count, count);
  const int ok = permute(vi, (size_t)*mi * sizeof(sint), order, count) &&
                 permute(vl, (size_t)*ml * sizeof(slong), order, count) &&
                 permute(vr, (size_t)*mr * sizeof(double), order, count);
  free(order);
  if (!ok) report(call, GSR_ERR_INTERNAL, "out of memory to sort %zu tuples", count);
}

static void run_ituple_sort(const sint *handle, sint *tuples, const sint *m, const sint *n, const sint *keys,
                            const sint *nkey) {
  const sint none = 0;
  if (*m < 1) {
    if (find_router(*handle, "crystal_ituple_sort"))
      report("crystal_ituple_sort", GSR_ERR_INVALID_ARGUMENT, "m = %d, but a tuple needs at least one integer",
             (int)*m);
    return;
  }
  run_sort("crystal_ituple_sort", "m", handle, n, tuples, m, NULL, &none, NULL, &none, keys, nkey);
}

static void run_tuple_sort(const sint *handle, const sint *n, sint *vi, const sint *mi, slong *vl, const sint *ml,
                           double *vr, const sint *mr, const sint *keys, const sint *nkey) {
  run_sort("crystal_tuple_sort", "mi", handle, n, vi, mi, vl, ml, vr, mr, keys, nkey);
}

/* ---- the exported names: fgslib_<name>_ (Nek5000's build of gslib) and <name>_ ------- */

#define GSLIB_FORTRAN(name, impl, params, args) \
  void fgslib_##name##_ params;                 \
  void name##_ params;                          \
  void fgslib_##name##_ params { impl args; }   \
  void name##_ params { impl args; }

// A parameter list as a macro argument reads as a product to clang-format: `sint * handle`.
// clang-format off
GSLIB_FORTRAN(crystal_setup, run_setup, (sint *handle, const MPI_Fint *comm, const sint *np), (handle, comm, np))
// clang-format on
GSLIB_FORTRAN(crystal_ituple_transfer, run_ituple_transfer,
              (const sint *handle, sint *tuples, const sint *m, sint *n, const sint *max, const sint *kp),
              (handle, tuples, m, n, max, kp))
GSLIB_FORTRAN(crystal_tuple_transfer, run_tuple_transfer,
              (const sint *handle, sint *n, const sint *max, sint *vi, const sint *mi, slong *vl, const sint *ml,
               double *vr, const sint *mr, const sint *kp),
              (handle, n, max, vi, mi, vl, ml, vr, mr, kp))
GSLIB_FORTRAN(crystal_ituple_sort, run_ituple_sort,
              (const sint *handle, sint *tuples, const sint *m, const sint *n, const sint *keys, const sint *nkey),
              (handle, tuples, m, n, keys, nkey))
GSLIB_FORTRAN(crystal_tuple_sort, run_tuple_sort,
              (const sint *handle, const sint *n, sint *vi, const sint *mi, slong *vl, const sint *ml, double *vr,
               const sint *mr, const sint *keys, const sint *nkey),
              (handle, n, vi, mi, vl, ml, vr, mr, keys, nkey))
GSLIB_FORTRAN(crystal_free, run_free, (const sint *handle), (handle))
