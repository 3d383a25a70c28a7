/* gslib_fortran.c — gslib's own Fortran entry points, for code that calls them without the
 * module `gsr` (Nek5000's core, F77 with `include 'mpif.h'`).
 *
 * Every routine exists twice, as gslib builds them with gfortran's naming (lower case and
 * a trailing underscore): with Nek5000's prefix (fgslib_gs_setup_) and without it
 * (gs_setup_). The arguments are gslib's, all by reference: handles, counts, codes and np
 * are default integers (gslib's sint), ids integer*8 (slong), comm an MPI_Fint.
 *
 * Owns only gslib's handle numbering: handles count from 0 in a table of their own, each
 * entry naming a handle of the module's table (gsr_fortran.c), which does the rest —
 * communicator and code conversion, argument checks, the error record. So errors follow
 * gsr_set_error_mode (abort by default) and name the gslib call. Requests of the igs_*
 * calls are the module's request numbers. docs/fortran.md lists what differs from gslib.
 */
#include "gsr/domains.h"
#include "gsr/gs.h"
#include "capi/shim.h"
#include "gsr_fortran.h"
#include "table.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- gslib's handle table ----------------------------------------------------------- */

/* Slot g holds the module handle behind gslib handle g (an int >= 1, as a pointer), empty
 * once freed. Handles are never reused (as in gslib), so a freed one stays detectable; the
 * table may be read and grown from several threads at once (table.h). */
static struct gsr_table module_handles = GSR_TABLE_INITIALIZER;

static int add_handle(int h) { return gsr_table_append(&module_handles, (void *)(intptr_t)h); }

/* Reports why gslib handle g has no module handle behind it. */
static void fail_handle(sint g, const char *call) {
  char what[128];
  if (g < 0 || g >= gsr_table_count(&module_handles))
    snprintf(what, sizeof what, "handle %d was never returned by gs_setup", (int)g);
  else
    snprintf(what, sizeof what, "handle %d has been freed", (int)g);
  gsr_shim_fail(GSR_ERR_STATE, call, what);
}

/* The module handle behind gslib handle g; 0 after reporting when g is not live. */
static int module_handle(sint g, const char *call) {
  const int h = (int)(intptr_t)gsr_table_get(&module_handles, (int)g);
  if (!h) fail_handle(g, call);
  return h;
}

/* ---- the routines, once --------------------------------------------------------------- */

/* gslib's setup always checks np against the communicator and prints its statistics;
 * this one checks np the same way and prints gsr's one-line summary from rank 0 instead
 * (GSR_QUIET=1 silences it). A failed setup (return mode) gives -1. */
static void run_setup_pick(sint *handle, const slong *id, const sint *n, const MPI_Fint *comm, const sint *np,
                           const sint *method, const char *call) {
  *handle = -1;
  const int h = gsr_f_setup(id, *n, (int)*comm, 1, *np, 0, *method, 1, call);
  if (!h) return;
  const int g = add_handle(h);
  if (g < 0) {
    gsr_f_free(h);
    gsr_shim_fail(GSR_ERR_INTERNAL, call, "out of memory for the handle table");
    return;
  }
  *handle = g;
}

static void run_setup(sint *handle, const slong *id, const sint *n, const MPI_Fint *comm, const sint *np) {
  const sint method = gs_auto;
  run_setup_pick(handle, id, n, comm, np, &method, "gs_setup");
}

static void run_op(const sint *handle, void *u, const sint *dom, const sint *op, const sint *transpose) {
  const int h = module_handle(*handle, "gs_op");
  if (h) gsr_f_op(h, u, *dom, *op, *transpose, "gs_op");
}

static void run_op_vec(const sint *handle, void *u, const sint *d, const sint *dom, const sint *op,
                       const sint *transpose) {
  const int h = module_handle(*handle, "gs_op_vec");
  if (h) gsr_f_vec(h, u, *d, *dom, *op, *transpose, "gs_op_vec");
}

static void run_op_many(const sint *handle, void *u1, void *u2, void *u3, void *u4, void *u5, void *u6, const sint *d,
                        const sint *dom, const sint *op, const sint *transpose) {
  const int h = module_handle(*handle, "gs_op_many");
  if (h) gsr_f_many(h, u1, u2, u3, u4, u5, u6, *d, *dom, *op, *transpose, "gs_op_many");
}

/* Size of one element of a Fortran dom code; 0 for an unknown code (which the module
 * then reports). */
static size_t element_size(sint dom) {
#define GSR_FORTRAN_SIZE(type, domain, name, gs_code, fortran_code) \
  if (dom == (fortran_code)) return sizeof(type);
  GSR_FOR_EACH_DOMAIN(GSR_FORTRAN_SIZE)
#undef GSR_FORTRAN_SIZE
  return 0;
}

/* n fields, field i starting `stride` elements of dom after field i - 1, six per exchange
 * (the module's gs_many takes at most six arrays). n <= 0 does nothing, as in gslib. */
static void run_op_fields(const sint *handle, void *u, const sint *stride, const sint *n, const sint *dom,
                          const sint *op, const sint *transpose) {
  const char *call = "gs_op_fields";
  const int h = module_handle(*handle, call);
  if (!h || *n <= 0) return;
  const ptrdiff_t step = (ptrdiff_t)*stride * (ptrdiff_t)element_size(*dom);
  for (sint first = 0; first < *n; first += 6) {
    void *fields[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    const int k = *n - first < 6 ? (int)(*n - first) : 6;
    for (int i = 0; i < k; ++i) fields[i] = (char *)u + (ptrdiff_t)(first + i) * step;
    gsr_f_many(h, fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], k, *dom, *op, *transpose, call);
    if (gsr_get_error_mode() == GSR_ERRORS_RETURN && gsr_last_error() != GSR_SUCCESS) return;
  }
}

/* The non-blocking starts store the module's request (0 after an error) in *request. */
static void run_iop(const sint *handle, void *u, const sint *dom, const sint *op, const sint *transpose,
                    sint *request) {
  const int h = module_handle(*handle, "igs_op");
  *request = h ? gsr_f_iop(h, u, *dom, *op, *transpose, "igs_op") : 0;
}

static void run_iop_vec(const sint *handle, void *u, const sint *d, const sint *dom, const sint *op,
                        const sint *transpose, sint *request) {
  const int h = module_handle(*handle, "igs_op_vec");
  *request = h ? gsr_f_ivec(h, u, *d, *dom, *op, *transpose, "igs_op_vec") : 0;
}

static void run_iop_many(const sint *handle, void *u1, void *u2, void *u3, void *u4, void *u5, void *u6, const sint *d,
                         const sint *dom, const sint *op, const sint *transpose, sint *request) {
  const int h = module_handle(*handle, "igs_op_many");
  *request = h ? gsr_f_imany(h, u1, u2, u3, u4, u5, u6, *d, *dom, *op, *transpose, "igs_op_many") : 0;
}

static void run_op_wait(const sint *request) { gsr_f_wait(*request, "gs_op_wait"); }

/* Taken out of the table while the module frees it, so of two threads freeing the same
 * handle one finds it freed; a refused free puts it back. */
static void run_free_handle(const sint *handle) {
  const int h = (int)(intptr_t)gsr_table_take(&module_handles, (int)*handle);
  if (!h) {
    fail_handle(*handle, "gs_free");
    return;
  }
  gsr_f_free(h);
  gsr_table_release(&module_handles, (int)*handle, gsr_last_error() == GSR_SUCCESS ? NULL : (void *)(intptr_t)h);
}

/* gslib checks np here too. All ranks learn whether any rank's np is wrong before the
 * collective gs_unique starts, so none is left waiting in it (return mode). */
static void run_unique(slong *id, const sint *n, const MPI_Fint *comm, const sint *np) {
  const char *call = "gs_unique";
  const MPI_Comm c = MPI_Comm_f2c(*comm);
  int size = 0;
  if (c == MPI_COMM_NULL || MPI_Comm_size(c, &size) != MPI_SUCCESS) {
    gsr_shim_fail(GSR_ERR_INVALID_ARGUMENT, call, "the communicator is not valid");
    return;
  }
  char what[128];
  snprintf(what, sizeof what, "np = %d, but the communicator has %d rank%s", (int)*np, size, size == 1 ? "" : "s");
  const int local = *np == size ? GSR_SUCCESS : GSR_ERR_INVALID_ARGUMENT;
  if (local != GSR_SUCCESS && gsr_get_error_mode() == GSR_ERRORS_ABORT) {
    gsr_shim_fail(local, call, what); /* aborts the job */
    return;
  }
  /* Polled against GSR_TIMEOUT (capi/shim.h): a rank that skips the call costs the others
   * E-SETUP-TIMEOUT, not a hang. */
  int any = local;
  char agreement[320] = "";
  const int agreed = gsr_shim_agree_max(c, &any, agreement, sizeof agreement);
  if (agreed != GSR_SUCCESS) {
    gsr_shim_fail(local != GSR_SUCCESS ? local : agreed, call, local != GSR_SUCCESS ? what : agreement);
    return;
  }
  if (local != GSR_SUCCESS) {
    gsr_shim_fail(local, call, what);
    return;
  }
  if (any != GSR_SUCCESS) {
    gsr_shim_fail(GSR_ERR_REMOTE, call, "another rank found an error in its arguments");
    return;
  }
  gsr_f_unique(id, *n, (int)*comm);
}

/* ---- the exported names: fgslib_<name>_ (Nek5000's build of gslib) and <name>_ ------- */

#define GSLIB_FORTRAN(name, impl, params, args) \
  void fgslib_##name##_ params;                 \
  void name##_ params;                          \
  void fgslib_##name##_ params { impl args; }   \
  void name##_ params { impl args; }

// A parameter list as a macro argument reads as a product to clang-format: `sint * handle`.
// clang-format off
GSLIB_FORTRAN(gs_setup, run_setup,
              (sint *handle, const slong *id, const sint *n, const MPI_Fint *comm, const sint *np),
              (handle, id, n, comm, np))
GSLIB_FORTRAN(gs_setup_pick, run_setup_pick,
              (sint *handle, const slong *id, const sint *n, const MPI_Fint *comm, const sint *np, const sint *method),
              (handle, id, n, comm, np, method, "gs_setup_pick"))
// clang-format on
GSLIB_FORTRAN(gs_op, run_op, (const sint *handle, void *u, const sint *dom, const sint *op, const sint *transpose),
              (handle, u, dom, op, transpose))
GSLIB_FORTRAN(gs_op_vec, run_op_vec,
              (const sint *handle, void *u, const sint *d, const sint *dom, const sint *op, const sint *transpose),
              (handle, u, d, dom, op, transpose))
GSLIB_FORTRAN(gs_op_many, run_op_many,
              (const sint *handle, void *u1, void *u2, void *u3, void *u4, void *u5, void *u6, const sint *d,
               const sint *dom, const sint *op, const sint *transpose),
              (handle, u1, u2, u3, u4, u5, u6, d, dom, op, transpose))
GSLIB_FORTRAN(gs_op_fields, run_op_fields,
              (const sint *handle, void *u, const sint *stride, const sint *n, const sint *dom, const sint *op,
               const sint *transpose),
              (handle, u, stride, n, dom, op, transpose))
GSLIB_FORTRAN(igs_op, run_iop,
              (const sint *handle, void *u, const sint *dom, const sint *op, const sint *transpose, sint *request),
              (handle, u, dom, op, transpose, request))
GSLIB_FORTRAN(igs_op_vec, run_iop_vec,
              (const sint *handle, void *u, const sint *d, const sint *dom, const sint *op, const sint *transpose,
               sint *request),
              (handle, u, d, dom, op, transpose, request))
GSLIB_FORTRAN(igs_op_many, run_iop_many,
              (const sint *handle, void *u1, void *u2, void *u3, void *u4, void *u5, void *u6, const sint *d,
               const sint *dom, const sint *op, const sint *transpose, sint *request),
              (handle, u1, u2, u3, u4, u5, u6, d, dom, op, transpose, request))
GSLIB_FORTRAN(gs_op_wait, run_op_wait, (const sint *request), (request))
GSLIB_FORTRAN(gs_free, run_free_handle, (const sint *handle), (handle))
GSLIB_FORTRAN(gs_unique, run_unique, (slong * id, const sint *n, const MPI_Fint *comm, const sint *np),
              (id, n, comm, np))

/* gslib's C access to a Fortran handle: the struct gs_data * behind gslib handle g, for C
 * code that shares handles with Fortran (gs.h declares it). Under both of gslib's names;
 * NULL, after reporting, when g is not live or C code freed its struct (gs_free of this
 * pointer: the handle then maps to nothing until the Fortran gs_free releases it). A C
 * call: success clears gsr_last_error(). */
struct gs_data *gs_hf2c(const sint g) {
  const int h = module_handle(g, "gs_hf2c");
  struct gs_data *gsh = h ? gsr_f_handle_data(h, "gs_hf2c") : NULL;
  if (gsh) gsr_shim_succeed();
  return gsh;
}
struct gs_data *gslib_gs_hf2c(const sint g) __attribute__((alias("gs_hf2c")));
