/* threads.c — the C interface (gs.h) under MPI_THREAD_MULTIPLE: four OpenMP threads of every
 * rank at once, each with a handle of its own on a communicator of its own (pairwise,
 * crystal router, allreduce, auto), each making 30 calls: gs, gs_vec, gs_many, and pairs of
 * igs (or igs_many) and igs_vec waited for in reverse order; double, float, int, long and
 * long long; add, mul, min and max; transpose 0 and 1; on ids that every rank shares, some 0,
 * some flagged. Then the main thread replays each thread's calls on the same handles, one
 * thread after the other, and compares the results bit for bit with the threads'; every
 * double sum is also checked against a reference that MPI_Allreduce computes over a dense
 * array indexed by id, so a wrong answer that is merely repeatable fails too. Last, each
 * thread tries to wait for another's request (refused; the request stays in flight for its
 * own thread), and frees its own handle. Rank 0 prints "PASS" when every rank passed; the
 * exit code is non-zero otherwise.
 */
#include <gsr/gs.h>

#include "handover.h"

#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
  THREADS = 4,
  STEPS = 30,
  MAX_N = 48,  /* entries per rank and thread */
  MAX_K = 3,   /* components (gs_vec) or arrays (gs_many) */
  MAX_ID = 24, /* ids 1..MAX_ID: a few dozen entries per rank share them */
  /* One step's results: its arrays (at most MAX_K * MAX_N values of 8 bytes), then the
   * second request's two doubles per entry. */
  PAIR_OFFSET = MAX_K * MAX_N * 8,
  STEP_BYTES = PAIR_OFFSET + 2 * MAX_N * 8
};

enum kind { ONE, VEC, MANY, PAIR };

static const gs_dom domains[] = {gs_double, gs_int, gs_long_long, gs_float, gs_long};
static const gs_op ops[] = {gs_add, gs_mul, gs_min, gs_max};
static const gs_method methods[THREADS] = {gs_pairwise, gs_crystal_router, gs_all_reduce, gs_auto};
static const char *const method_names[THREADS] = {"pairwise", "crystal_router", "allreduce", NULL};

static int rank = 0;

/* What one thread owns; the main thread reads it after the parallel region. */
struct run {
  int thread;
  MPI_Comm mpi_comm; /* MPI_Comm_dup of MPI_COMM_WORLD, made on the main thread */
  struct comm comm;  /* comm_init of mpi_comm, on the thread */
  struct gs_data *gsh;
  int n;
  slong id[MAX_N];
  unsigned char threaded[STEPS][STEP_BYTES]; /* results of the calls made by the thread */
  unsigned char serial[STEPS][STEP_BYTES];   /* the same calls replayed by the main thread */
  int failures;
};
static struct run runs[THREADS];
static int started[THREADS]; /* a request each thread started, for the others to try */

static void fail(struct run *run, int step, const char *what) {
  if (++run->failures <= 8) printf("threads: FAIL on rank %d, thread %d, step %d: %s\n", rank, run->thread, step, what);
}

static void expect_success(struct run *run, int step, const char *call) {
  char what[512];
  if (gsr_last_error() == GSR_SUCCESS) return;
  snprintf(what, sizeof what, "%s failed with %d: %s", call, gsr_last_error(), gsr_last_error_message());
  fail(run, step, what);
}

/* ---- deterministic inputs ------------------------------------------------------------ */

static uint64_t mix(uint64_t x) { /* splitmix64's finalizer */
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* A number fixed by this rank, the thread, the step (-1: the ids), which array and entry. */
static uint64_t draw(int thread, int step, int array, int entry) {
  return mix(((uint64_t)rank << 48) ^ ((uint64_t)thread << 40) ^ ((uint64_t)(step + 1) << 24) ^
             ((uint64_t)array << 16) ^ (uint64_t)entry);
}

/* The thread's ids: 1..MAX_ID (so heavily shared), every 11th entry 0, and on threads
 * other than 0 about one in six flagged. */
static void make_ids(struct run *run) {
  int i;
  run->n = 32 + (rank * 5 + run->thread * 3) % 17;
  for (i = 0; i < run->n; ++i) {
    const uint64_t r = draw(run->thread, -1, 0, i);
    slong id = 1 + (slong)(r % MAX_ID);
    if (run->thread != 0 && (r >> 20) % 6 == 0) id = -id;
    run->id[i] = i % 11 == 5 ? 0 : id;
  }
}

struct step {
  enum kind kind;
  gs_dom dom;
  gs_op op;
  unsigned k, transpose;
};

static struct step step_of(int thread, int step) {
  struct step s;
  s.kind = (enum kind)((step + thread) % 4);
  s.dom = domains[step % 5];
  s.op = ops[(step / 5 + thread) % 4];
  s.k = s.kind == ONE ? 1 : 1 + (unsigned)(step + 2 * thread) % MAX_K;
  s.transpose = (unsigned)(step / 3 + thread) % 2;
  return s;
}

/* Input `entry` of array `array` of a step: integers, small enough that sums and products
 * are exact (the second request of a pair, array MAX_K, is always a sum); halves for
 * min and max. */
static double input(int thread, int step, gs_op op, int array, int entry) {
  const uint64_t r = draw(thread, step, array, entry);
  if (op == gs_mul) return r % 8 == 0 ? 2.0 : (r >> 8) % 2 ? 1.0 : -1.0;
  if (op == gs_add) return (double)(r % 17) - 8.0;
  return (double)(r % 101) - 50.0 + 0.5 * (double)((r >> 40) % 2);
}

static size_t size_of(gs_dom dom) {
  return dom == gs_double  ? sizeof(double)
         : dom == gs_float ? sizeof(float)
         : dom == gs_int   ? sizeof(int)
         : dom == gs_long  ? sizeof(long)
                           : sizeof(long long);
}

/* u[0..count) of dom <- the inputs of `array`. */
static void fill(void *u, gs_dom dom, gs_op op, int thread, int step, int array, int count) {
  int j;
  for (j = 0; j < count; ++j) {
    const double v = input(thread, step, op, array, j);
    switch (dom) {
      case gs_double:
        ((double *)u)[j] = v;
        break;
      case gs_float:
        ((float *)u)[j] = (float)v;
        break;
      case gs_int:
        ((int *)u)[j] = (int)v;
        break;
      case gs_long:
        ((long *)u)[j] = (long)v;
        break;
      default:
        ((long long *)u)[j] = (long long)v;
        break;
    }
  }
}

/* ---- the reference for sums ---------------------------------------------------------- */

/* u: the result of a sum over doubles with k components per entry, from the inputs of
 * `array`. Each id's sums (of every copy, of the unflagged ones) and its number of flagged
 * copies come from MPI_Allreduce over arrays indexed by id, on the thread's communicator;
 * the expected values follow docs/concepts.md (Flags and transpose). */
static void check_sum(struct run *run, int step, int array, const double *u, unsigned k, unsigned transpose) {
  double table[3][MAX_K][MAX_ID + 1]; /* all, unflagged, flagged count (component 0) */
  int i;
  unsigned c;
  memset(table, 0, sizeof table);
  for (i = 0; i < run->n; ++i) {
    const int group = (int)(run->id[i] < 0 ? -run->id[i] : run->id[i]);
    if (group == 0) continue;
    if (run->id[i] < 0) table[2][0][group] += 1.0;
    for (c = 0; c < k; ++c) {
      const double x = input(run->thread, step, gs_add, array, i * (int)k + (int)c);
      table[0][c][group] += x;
      if (run->id[i] > 0) table[1][c][group] += x;
    }
  }
  if (MPI_Allreduce(MPI_IN_PLACE, table, (int)(sizeof table / sizeof(double)), MPI_DOUBLE, MPI_SUM, run->mpi_comm) !=
      MPI_SUCCESS) {
    fail(run, step, "MPI_Allreduce of the reference sums failed");
    return;
  }
  for (i = 0; i < run->n; ++i) {
    const int group = (int)(run->id[i] < 0 ? -run->id[i] : run->id[i]);
    for (c = 0; c < k; ++c) {
      const int entry = i * (int)k + (int)c;
      const double x = input(run->thread, step, gs_add, array, entry);
      double want = table[0][c][group];
      if (group == 0)
        want = x;
      else if (table[2][0][group] > 0 && !transpose)
        want = table[1][c][group];
      else if (table[2][0][group] > 0 && run->id[i] < 0)
        want = x;
      if (u[entry] != want) {
        char what[256];
        snprintf(what, sizeof what, "array %d entry %d (id %lld, transpose %u) is %g, the reference sum %g", array,
                 entry, (long long)run->id[i], transpose, u[entry], want);
        fail(run, step, what);
        return;
      }
    }
  }
}

/* ---- the calls ------------------------------------------------------------------------ */

/* Runs step `step` of the thread's sequence on its handle, writing the results to `out`;
 * `check`: also against the reference (collective, so only where every rank replays). */
static void run_step(struct run *run, int step, unsigned char *out, int check) {
  const struct step s = step_of(run->thread, step);
  const int n = run->n, t = run->thread;
  const size_t size = size_of(s.dom);
  void *arrays[MAX_K];
  unsigned a;
  for (a = 0; a < s.k; ++a) arrays[a] = out + a * (size_t)n * size;
  switch (s.kind) {
    case ONE:
      fill(out, s.dom, s.op, t, step, 0, n);
      gs(out, s.dom, s.op, s.transpose, run->gsh, NULL);
      expect_success(run, step, "gs");
      break;
    case VEC:
      fill(out, s.dom, s.op, t, step, 0, n * (int)s.k);
      gs_vec(out, s.k, s.dom, s.op, s.transpose, run->gsh, NULL);
      expect_success(run, step, "gs_vec");
      break;
    case MANY:
      for (a = 0; a < s.k; ++a) fill(arrays[a], s.dom, s.op, t, step, (int)a, n);
      gs_many(arrays, s.k, s.dom, s.op, s.transpose, run->gsh, NULL);
      expect_success(run, step, "gs_many");
      break;
    case PAIR: {
      /* The first request is igs_many on odd steps (k arrays), else igs (one); the second
       * a sum of two components; waited for in reverse order, local work in between. */
      double *second = (double *)(out + PAIR_OFFSET);
      const unsigned first_k = step % 2 ? s.k : 1;
      int first_request = -1, second_request = -1, i;
      long long local_work = 0;
      for (a = 0; a < first_k; ++a) fill(arrays[a], s.dom, s.op, t, step, (int)a, n);
      fill(second, gs_double, gs_add, t, step, MAX_K, 2 * n);
      if (first_k > 1) {
        igs_many(arrays, first_k, s.dom, s.op, s.transpose, run->gsh, NULL, &first_request);
        expect_success(run, step, "igs_many");
      } else {
        igs(out, s.dom, s.op, s.transpose, run->gsh, NULL, &first_request);
        expect_success(run, step, "igs");
      }
      igs_vec(second, 2, gs_double, gs_add, s.transpose, run->gsh, NULL, &second_request);
      expect_success(run, step, "igs_vec");
      for (i = 0; i < n; ++i) local_work += run->id[i] * run->id[i];
      if (local_work < 0) fail(run, step, "the local work went wrong");
      gs_wait(second_request);
      expect_success(run, step, "gs_wait (second request)");
      gs_wait(first_request);
      expect_success(run, step, "gs_wait (first request)");
      if (check) check_sum(run, step, MAX_K, second, 2, s.transpose);
      if (check && s.dom == gs_double && s.op == gs_add)
        for (a = 0; a < first_k; ++a) check_sum(run, step, (int)a, arrays[a], 1, s.transpose);
      return;
    }
  }
  if (check && s.dom == gs_double && s.op == gs_add) {
    if (s.kind == MANY)
      for (a = 0; a < s.k; ++a) check_sum(run, step, (int)a, arrays[a], 1, s.transpose);
    else
      check_sum(run, step, 0, (const double *)out, s.kind == VEC ? s.k : 1, s.transpose);
  }
}

/* On the thread: its struct comm and handle. */
static void set_up(struct run *run) {
  make_ids(run);
  comm_init(&run->comm, run->mpi_comm);
  expect_success(run, -1, "comm_init");
  run->gsh = gs_setup(run->id, (uint)run->n, &run->comm, 0, methods[run->thread], 0);
  expect_success(run, -1, "gs_setup");
  if (!run->gsh) return;
  if (method_names[run->thread] && strcmp(gsr_method_name(run->gsh), method_names[run->thread]) != 0) {
    char what[128];
    snprintf(what, sizeof what, "the handle's method is %s, not %s", gsr_method_name(run->gsh),
             method_names[run->thread]);
    fail(run, -1, what);
  }
}

/* On the thread, at once with the others: a request another thread waits for is refused
 * (E-THREAD-OTHER-THREAD) and stays in flight, for the thread that started it to wait for. */
static void wait_elsewhere(struct run *run) {
  const struct run *other = &runs[(run->thread + 1) % THREADS];
  double u[MAX_N];
  fill(u, gs_double, gs_add, run->thread, STEPS, 0, run->n);
  if (run->gsh) {
    igs(u, gs_double, gs_add, 0, run->gsh, NULL, &started[run->thread]);
    expect_success(run, STEPS, "igs");
  }
  gsr_test_handover_release();
#pragma omp barrier
  gsr_test_handover_acquire();
  if (other->gsh) {
    gs_wait(started[other->thread]);
    if (gsr_last_error() != GSR_ERR_STATE || !strstr(gsr_last_error_message(), "started on another thread")) {
      char what[512];
      snprintf(what, sizeof what, "a wait for another thread's request was not refused: \"%s\"",
               gsr_last_error_message());
      fail(run, STEPS, what);
    }
  }
  gsr_test_handover_release();
#pragma omp barrier
  gsr_test_handover_acquire();
  if (run->gsh) {
    gs_wait(started[run->thread]);
    expect_success(run, STEPS, "gs_wait on the thread that started the request");
    check_sum(run, STEPS, 0, u, 1, 0);
  }
}

/* ---- requests whose thread exited, and two waits at once (pthreads) --------------------- */

/* The C shim's own question (src/capi/shim.h), exported for the Fortran library. */
int gsr_shim_request_in_flight(int request);

struct shared_request {
  struct gs_data *gsh;
  double u[2], v[2];
  int request;
  volatile int waiting; /* the owner is about to enter its gs_wait */
  char error[512];      /* what a thread found wrong, for the main thread to report */
};

static void note(struct shared_request *s, const char *what) {
  if (!s->error[0])
    snprintf(s->error, sizeof s->error, "%s (error %d: \"%s\")", what, gsr_last_error(), gsr_last_error_message());
}

static void pause_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static void *start_and_exit(void *arg) {
  struct shared_request *s = arg;
  igs(s->u, gs_double, gs_add, 0, s->gsh, NULL, &s->request);
  if (gsr_last_error() != GSR_SUCCESS) note(s, "igs failed");
  return NULL;
}

/* A thread started after the request's thread exited (the C library may give it that
 * thread's thread-local storage) is another thread: its wait and its gs are refused at once
 * (E-THREAD-OTHER-THREAD), not left to spin until GSR_TIMEOUT, nor run as a call the other
 * ranks number differently. */
static void *wait_after_exit(void *arg) {
  struct shared_request *s = arg;
  gs_wait(s->request);
  if (gsr_last_error() != GSR_ERR_STATE || !strstr(gsr_last_error_message(), "started on another thread"))
    note(s, "a wait from a thread started after the request's thread exited was not refused");
  else if (!strstr(gsr_last_error_message(), "exited before waiting for it"))
    note(s, "the refusal does not say that the request's thread exited");
  gsr_clear_error();
  gs(s->v, gs_double, gs_add, 0, s->gsh, NULL);
  if (gsr_last_error() != GSR_ERR_STATE || !strstr(gsr_last_error_message(), "started on another thread"))
    note(s, "a gs from a thread started after the request's thread exited was not refused");
  gsr_clear_error();
  if (s->v[0] != 1 || s->v[1] != 2) note(s, "a refused gs changed its data");
  if (!gsr_shim_request_in_flight(s->request)) note(s, "the refused wait took the request out of flight");
  return NULL;
}

static void *owner_waits(void *arg) {
  struct shared_request *s = arg;
  igs(s->u, gs_double, gs_add, 0, s->gsh, NULL, &s->request);
  if (gsr_last_error() != GSR_SUCCESS) note(s, "igs failed");
  __atomic_store_n(&s->waiting, 1, __ATOMIC_RELEASE);
  gs_wait(s->request);
  if (gsr_last_error() != GSR_SUCCESS) note(s, "the owner's own wait failed");
  return NULL;
}

/* While the owner is inside its wait (rank 1 starts its call late), another thread's wait
 * for the same request is refused as a call of a handle another thread is inside
 * (E-THREAD-HANDLE-BUSY), and leaves the owner's wait and the request alone. */
static void *wait_during_owners_wait(void *arg) {
  struct shared_request *s = arg;
  while (!__atomic_load_n(&s->waiting, __ATOMIC_ACQUIRE)) pause_ms(1);
  pause_ms(300);
  gs_wait(s->request);
  if (gsr_last_error() != GSR_ERR_STATE || !strstr(gsr_last_error_message(), "in use by another thread"))
    note(s, "a wait during the owner's own wait was not refused as in use by another thread");
  gsr_clear_error();
  return NULL;
}

static int run_pair(void *(*first)(void *), void *(*second)(void *), struct shared_request *s, int at_once) {
  pthread_t a, b;
  if (pthread_create(&a, NULL, first, s) != 0) return 0;
  if (!at_once) pthread_join(a, NULL);
  if (pthread_create(&b, NULL, second, s) != 0) return 0;
  if (at_once) pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 1;
}

static int thread_exits(MPI_Comm mpi_comm) {
  static slong ids[2] = {1, 2};
  struct comm c;
  int failures = 0;
  comm_init(&c, mpi_comm);
  /* Kept to the end of the process: its request is never done. */
  struct shared_request *exited = calloc(1, sizeof *exited);
  struct shared_request *busy = calloc(1, sizeof *busy);
  setenv("GSR_TIMEOUT", "2", 1); /* a wait that could never end would fail in seconds */
  exited->gsh = gs_setup(ids, 2, &c, 0, gs_pairwise, 0);
  unsetenv("GSR_TIMEOUT");
  busy->gsh = gs_setup(ids, 2, &c, 0, gs_pairwise, 0);
  if (!exited->gsh || !busy->gsh) {
    printf("threads: FAIL on rank %d: gs_setup: %s\n", rank, gsr_last_error_message());
    return 1;
  }
  exited->u[0] = busy->u[0] = exited->v[0] = 1;
  exited->u[1] = busy->u[1] = exited->v[1] = 2;
  if (!run_pair(start_and_exit, wait_after_exit, exited, 0)) note(exited, "pthread_create failed");

  if (rank == 1) { /* late: rank 0's owner stays inside its wait */
    pause_ms(1200);
    gs(busy->u, gs_double, gs_add, 0, busy->gsh, NULL);
    if (gsr_last_error() != GSR_SUCCESS) note(busy, "gs failed");
  } else if (!run_pair(owner_waits, wait_during_owners_wait, busy, 1)) {
    note(busy, "pthread_create failed");
  }
  if (busy->u[0] != c.np || busy->u[1] != 2.0 * c.np) note(busy, "the owner's wait gave a wrong sum");
  if (exited->error[0]) printf("threads: FAIL on rank %d: %s\n", rank, exited->error), ++failures;
  if (busy->error[0]) printf("threads: FAIL on rank %d: %s\n", rank, busy->error), ++failures;
  gs_free(busy->gsh);
  return failures;
}

int main(int argc, char **argv) {
  int provided = MPI_THREAD_SINGLE, t, step, failed = 0, any_failed = 0, wrong_team = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_MULTIPLE) {
    printf("threads: FAIL on rank %d: MPI provides thread level %d, not MPI_THREAD_MULTIPLE\n", rank, provided);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  omp_set_dynamic(0);

  /* Communicator creation is collective: one per thread, in the same order on every rank. */
  for (t = 0; t < THREADS; ++t) {
    runs[t].thread = t;
    MPI_Comm_dup(MPI_COMM_WORLD, &runs[t].mpi_comm);
  }

  gsr_test_handover_release();
#pragma omp parallel num_threads(THREADS)
  {
    gsr_test_handover_acquire();
    struct run *run = &runs[omp_get_thread_num()];
    if (omp_get_num_threads() != THREADS) {
#pragma omp atomic write
      wrong_team = 1;
    } else {
      set_up(run);
      int s;
      for (s = 0; s < STEPS && run->gsh; ++s) run_step(run, s, run->threaded[s], 0);
    }
    gsr_test_handover_release();
  }
  gsr_test_handover_acquire();
  if (wrong_team) {
    printf("threads: FAIL on rank %d: the parallel region did not get %d threads\n", rank, THREADS);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  /* The same calls, one thread's handle after the other, on the main thread. */
  for (t = 0; t < THREADS; ++t) {
    struct run *run = &runs[t];
    for (step = 0; step < STEPS && run->gsh; ++step) {
      run_step(run, step, run->serial[step], 1);
      if (memcmp(run->threaded[step], run->serial[step], STEP_BYTES) != 0)
        fail(run, step, "the thread's results differ from the same calls made serially");
    }
  }

  gsr_test_handover_release();
#pragma omp parallel num_threads(THREADS)
  {
    gsr_test_handover_acquire();
    struct run *run = &runs[omp_get_thread_num()];
    wait_elsewhere(run);
    if (run->gsh) {
      gs_free(run->gsh);
      expect_success(run, STEPS, "gs_free");
    }
    comm_free(&run->comm);
    gsr_test_handover_release();
  }
  gsr_test_handover_acquire();

  failed |= thread_exits(runs[0].mpi_comm) != 0;
  for (t = 0; t < THREADS; ++t) {
    failed |= runs[t].failures != 0;
    MPI_Comm_free(&runs[t].mpi_comm);
  }
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf(any_failed ? "threads: FAIL (see the ranks' lines above)\n" : "threads: PASS\n");
  MPI_Finalize();
  return any_failed;
}
