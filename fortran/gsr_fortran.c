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
 *   - mesh loading (gsr/mesh.h) with the same error record.
 *
 * Errors follow the C API's mode (gsr_set_error_mode): abort with "gsr: <call>: <what>" on
 * stderr, or record a code and message and return. The Fortran side keeps the record of the
 * last failed call, whether the failure was found here or in the C library, so the Fortran
 * gsr_last_error / gsr_last_error_message see both. Handles start at 1 and are never reused,
 * so a freed handle stays detectable; 0 means "no handle".
 */
#include "gsr/gs.h"
#include "gsr/mesh.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GSR_F_MAX_MANY 6

/* ---- error record ------------------------------------------------------------------- */

static int last_code = GSR_SUCCESS;
static char last_message[1024] = "";

static void record(int code, const char *message) {
  last_code = code;
  snprintf(last_message, sizeof last_message, "%s", message);
}

/* Reports an error found in this file: aborts in GSR_ERRORS_ABORT mode, else records it. */
static void fail(int code, const char *call, const char *format, ...) {
  char what[768];
  char message[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  snprintf(message, sizeof message, "gsr: %s: %s", call, what);
  if (gsr_get_error_mode() == GSR_ERRORS_ABORT) {
    fprintf(stderr, "%s\n", message);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code); /* MPI_Abort does not return; this keeps the compiler informed. */
  }
  record(code, message);
}

/* Around every call into the C library: clear its record before, copy a failure after,
 * naming the Fortran call instead of the C function ("gsr: gs: ..." -> "gsr: gs_op: ...").
 * Returns the C library's error code for that call (GSR_SUCCESS when it succeeded). */
static void c_call_begin(void) { gsr_clear_error(); }

static int c_call_end(const char *call) {
  const int code = gsr_last_error();
  if (code == GSR_SUCCESS) return code;
  const char *message = gsr_last_error_message();
  const char *prefix = "gsr: ";
  const char *rest = strncmp(message, prefix, strlen(prefix)) == 0
                         ? strstr(message + strlen(prefix), ": ")
                         : NULL;
  if (rest) {
    char renamed[1024];
    snprintf(renamed, sizeof renamed, "gsr: %s%s", call, rest);
    record(code, renamed);
  } else {
    record(code, message);
  }
  return code;
}

int gsr_f_last_error(void) { return last_code; }
const char *gsr_f_last_error_message(void) { return last_message; }
void gsr_f_clear_error(void) {
  last_code = GSR_SUCCESS;
  last_message[0] = '\0';
  gsr_clear_error();
}

/* ---- handle table ------------------------------------------------------------------- */

static struct gs_data **handles = NULL; /* handles[h - 1] for Fortran handle h */
static int handle_count = 0;
static int handle_capacity = 0;

static int add_handle(struct gs_data *gsh) {
  if (handle_count == handle_capacity) {
    const int capacity = handle_capacity ? 2 * handle_capacity : 16;
    struct gs_data **grown = realloc(handles, (size_t)capacity * sizeof *grown);
    if (!grown) return 0;
    handles = grown;
    handle_capacity = capacity;
  }
  handles[handle_count++] = gsh;
  return handle_count;
}

static struct gs_data *find_handle(int h, const char *call) {
  if (h < 1 || h > handle_count) {
    fail(GSR_ERR_STATE, call, "handle %d was never returned by gs_setup", h);
    return NULL;
  }
  if (!handles[h - 1]) {
    fail(GSR_ERR_STATE, call, "handle %d has been freed", h);
    return NULL;
  }
  return handles[h - 1];
}

/* ---- requests of the non-blocking calls ----------------------------------------------- */

/* igs_many receives an array of pointers, which must outlive the call; each request is a
 * separate allocation so that growing the table never moves one under the C library. */
struct request {
  int c_request;
  void *arrays[GSR_F_MAX_MANY];
};
static struct request **requests = NULL; /* requests[r - 1] for Fortran request r */
static int request_capacity = 0;

static int add_request(void) {
  int r = 0;
  while (r < request_capacity && requests[r]) ++r;
  if (r == request_capacity) {
    const int capacity = request_capacity ? 2 * request_capacity : 8;
    struct request **grown = realloc(requests, (size_t)capacity * sizeof *grown);
    if (!grown) return 0;
    for (int i = request_capacity; i < capacity; ++i) grown[i] = NULL;
    requests = grown;
    request_capacity = capacity;
  }
  requests[r] = calloc(1, sizeof **requests);
  return requests[r] ? r + 1 : 0;
}

static void drop_request(int r) {
  free(requests[r - 1]);
  requests[r - 1] = NULL;
}

/* ---- code conversion ---------------------------------------------------------------- */

static int to_dom(int dom, gs_dom *out, const char *call) {
  switch (dom) {
    case 1: *out = gs_double; return 1;
    case 2: *out = gs_sint; return 1;
    case 3: *out = gs_slong; return 1;
    case 4: *out = gs_float; return 1;
    default:
      fail(GSR_ERR_INVALID_ARGUMENT, call,
           "unknown dom code %d (1 = double, 2 = sint, 3 = slong, 4 = float)", dom);
      return 0;
  }
}

static int to_op(int op, gs_op *out, const char *call) {
  switch (op) {
    case 1: *out = gs_add; return 1;
    case 2: *out = gs_mul; return 1;
    case 3: *out = gs_min; return 1;
    case 4: *out = gs_max; return 1;
    case 5: *out = gs_bpr; return 1;
    default:
      fail(GSR_ERR_INVALID_ARGUMENT, call,
           "unknown op code %d (1 = sum, 2 = mult, 3 = min, 4 = max, 5 = bpr)", op);
      return 0;
  }
}

/* A bad argument found here must not leave the other ranks waiting in the exchange: take
 * part in the round with a code the C library rejects (it then sends "failed" headers to
 * the neighbours instead of data), and only then report the Fortran-level error. */
static void join_failed_round(struct gs_data *gsh) {
  const int mode = gsr_get_error_mode();
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  gs(NULL, gs_dom_n, gs_add, 0, gsh, NULL);
  gsr_set_error_mode(mode);
}

/* Converts everything an operation needs; 0 (after reporting) when anything is wrong. */
static int prepare(int h, int dom, int op, const char *call, struct gs_data **gsh,
                   gs_dom *c_dom, gs_op *c_op) {
  *gsh = find_handle(h, call);
  if (!*gsh) return 0;
  const int dom_ok = dom >= 1 && dom <= 4, op_ok = op >= 1 && op <= 5;
  if (!dom_ok || !op_ok) join_failed_round(*gsh);
  return to_dom(dom, c_dom, call) && to_op(op, c_op, call);
}

static int check_components(int k, const char *call) {
  if (k >= 1) return 1;
  fail(GSR_ERR_INVALID_ARGUMENT, call, "k = %d, the number of components must be >= 1", k);
  return 0;
}

/* Collects u1..uk into arrays[]; an absent array among the first k is an error. */
static int gather_arrays(int k, void *u1, void *u2, void *u3, void *u4, void *u5, void *u6,
                         void **arrays, const char *call) {
  void *given[GSR_F_MAX_MANY] = {u1, u2, u3, u4, u5, u6};
  if (k < 1 || k > GSR_F_MAX_MANY) {
    fail(GSR_ERR_INVALID_ARGUMENT, call, "k = %d, but between 1 and 6 arrays can be passed", k);
    return 0;
  }
  for (int i = 0; i < k; ++i) {
    if (!given[i]) {
      fail(GSR_ERR_INVALID_ARGUMENT, call, "k = %d, but array u%d is absent", k, i + 1);
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

/* Returns the new Fortran handle, or 0 after an error. The argument checks are agreed on
 * by all ranks before the collective setup starts, so no rank is left waiting in it. */
int gsr_f_setup(const slong *id, int n, int fcomm, int check_np, int np, int unique,
                int method, int verbose, const char *call) {
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
    snprintf(what, sizeof what, "np = %d, but the communicator has %d rank%s", np, size,
             size == 1 ? "" : "s");
  } else if (n < 0) {
    local = GSR_ERR_INVALID_ARGUMENT;
    snprintf(what, sizeof what, "n = %d is negative", n);
  } else if (method < gs_auto || method > gs_all_reduce) {
    local = GSR_ERR_INVALID_ARGUMENT;
    snprintf(what, sizeof what,
             "unknown method code %d (0 = auto, 1 = pairwise, 2 = crystal router, "
             "3 = allreduce)", method);
  }

  if (local != GSR_SUCCESS && gsr_get_error_mode() == GSR_ERRORS_ABORT) {
    fail(local, call, "%s", what); /* aborts the job; the other ranks go with it */
    return 0;
  }
  int any = local;
  if (MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, mpi_comm) != MPI_SUCCESS) {
    fail(GSR_ERR_MPI, call, "MPI_Allreduce failed while checking the arguments");
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

  struct comm c = {0, 0, MPI_COMM_NULL};
  comm_init(&c, mpi_comm);
  c_call_begin();
  struct gs_data *gsh =
      gs_setup(id, (uint)n, &c, unique, (gs_method)method, verbose);
  const int failed = c_call_end(call);
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
  struct comm c = {0, 0, MPI_COMM_NULL};
  comm_init(&c, mpi_comm);
  if (n < 0) {
    /* Take part in gs_unique's collective with arguments it rejects, so that the other
     * ranks get an error instead of waiting, then report what was wrong here. */
    const int mode = gsr_get_error_mode();
    gsr_set_error_mode(GSR_ERRORS_RETURN);
    gs_unique(NULL, 1, &c);
    gsr_set_error_mode(mode);
    comm_free(&c);
    fail(GSR_ERR_INVALID_ARGUMENT, call, "n = %d is negative", n);
    return;
  }
  c_call_begin();
  gs_unique(id, (uint)n, &c);
  c_call_end(call);
  comm_free(&c);
}

void gsr_f_free(int h) {
  const char *call = "gs_free";
  struct gs_data *gsh = find_handle(h, call);
  if (!gsh) return;
  c_call_begin();
  gs_free(gsh);
  if (c_call_end(call) == GSR_SUCCESS) handles[h - 1] = NULL;
}

const char *gsr_f_method_name(int h) {
  const char *call = "gsr_method_name";
  struct gs_data *gsh = find_handle(h, call);
  if (!gsh) return "";
  c_call_begin();
  const char *name = gsr_method_name(gsh);
  c_call_end(call);
  return name ? name : "";
}

/* ---- blocking operations ------------------------------------------------------------ */

void gsr_f_op(int h, void *u, int dom, int op, int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  if (!prepare(h, dom, op, call, &gsh, &c_dom, &c_op)) return;
  c_call_begin();
  gs(u, c_dom, c_op, transpose != 0, gsh, NULL);
  c_call_end(call);
}

void gsr_f_vec(int h, void *u, int k, int dom, int op, int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  if (!prepare(h, dom, op, call, &gsh, &c_dom, &c_op)) return;
  if (k < 1) join_failed_round(gsh);
  if (!check_components(k, call)) return;
  c_call_begin();
  gs_vec(u, (unsigned)k, c_dom, c_op, transpose != 0, gsh, NULL);
  c_call_end(call);
}

void gsr_f_many(int h, void *u1, void *u2, void *u3, void *u4, void *u5, void *u6, int k,
                int dom, int op, int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  void *arrays[GSR_F_MAX_MANY];
  if (!prepare(h, dom, op, call, &gsh, &c_dom, &c_op)) return;
  if (!gather_arrays(k, u1, u2, u3, u4, u5, u6, arrays, call)) {
    join_failed_round(gsh);
    return;
  }
  c_call_begin();
  gs_many(arrays, (unsigned)k, c_dom, c_op, transpose != 0, gsh, NULL);
  c_call_end(call);
}

/* ---- non-blocking operations: each returns a request (0 after an error) ------------- */

int gsr_f_iop(int h, void *u, int dom, int op, int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  if (!prepare(h, dom, op, call, &gsh, &c_dom, &c_op)) return 0;
  const int r = add_request();
  if (!r) {
    fail(GSR_ERR_INTERNAL, call, "out of memory for the request table");
    return 0;
  }
  c_call_begin();
  igs(u, c_dom, c_op, transpose != 0, gsh, NULL, &requests[r - 1]->c_request);
  if (c_call_end(call) != GSR_SUCCESS) {
    drop_request(r);
    return 0;
  }
  return r;
}

int gsr_f_ivec(int h, void *u, int k, int dom, int op, int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  if (!prepare(h, dom, op, call, &gsh, &c_dom, &c_op)) return 0;
  if (k < 1) join_failed_round(gsh);
  if (!check_components(k, call)) return 0;
  const int r = add_request();
  if (!r) {
    fail(GSR_ERR_INTERNAL, call, "out of memory for the request table");
    return 0;
  }
  c_call_begin();
  igs_vec(u, (unsigned)k, c_dom, c_op, transpose != 0, gsh, NULL, &requests[r - 1]->c_request);
  if (c_call_end(call) != GSR_SUCCESS) {
    drop_request(r);
    return 0;
  }
  return r;
}

int gsr_f_imany(int h, void *u1, void *u2, void *u3, void *u4, void *u5, void *u6, int k,
                int dom, int op, int transpose, const char *call) {
  struct gs_data *gsh;
  gs_dom c_dom;
  gs_op c_op;
  void *arrays[GSR_F_MAX_MANY];
  if (!prepare(h, dom, op, call, &gsh, &c_dom, &c_op)) return 0;
  if (!gather_arrays(k, u1, u2, u3, u4, u5, u6, arrays, call)) {
    join_failed_round(gsh);
    return 0;
  }
  const int r = add_request();
  if (!r) {
    fail(GSR_ERR_INTERNAL, call, "out of memory for the request table");
    return 0;
  }
  struct request *req = requests[r - 1];
  memcpy(req->arrays, arrays, sizeof arrays);
  c_call_begin();
  igs_many(req->arrays, (unsigned)k, c_dom, c_op, transpose != 0, gsh, NULL, &req->c_request);
  if (c_call_end(call) != GSR_SUCCESS) {
    drop_request(r);
    return 0;
  }
  return r;
}

void gsr_f_wait(int r, const char *call) {
  if (r < 1 || r > request_capacity || !requests[r - 1]) {
    fail(GSR_ERR_STATE, call, "request %d is not in flight (never started or already waited on)",
         r);
    return;
  }
  c_call_begin();
  gs_wait(requests[r - 1]->c_request);
  c_call_end(call);
  drop_request(r);
}

/* ---- meshes (gsr/mesh.h) ------------------------------------------------------------ */

int gsr_f_mesh_load(const char *path, int fcomm, int distribution, int with_coordinates,
                    gsr_mesh *mesh) {
  const char *call = "gsr_mesh_load";
  c_call_begin();
  const int code = gsr_mesh_load_f(path, (MPI_Fint)fcomm, distribution, with_coordinates, mesh);
  c_call_end(call);
  return code;
}
