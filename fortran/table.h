/* table.h — the numbered tables of the Fortran shims (module handles and requests in
 * gsr_fortran.c, gslib handles in gslib_fortran.c, crystal handles in gslib_crystal.c): a
 * table of void* slots, numbered from 0, that may be read from any thread while another
 * thread adds to it (MPI_THREAD_MULTIPLE, docs/fortran.md).
 *
 * Slots never move: the table is a fixed directory of chunks, chunk c holding 16 << c slots,
 * each chunk allocated once when the table first reaches it and never released. Slot
 * values, chunk pointers and the count are C11 atomics, so a lookup takes no lock; adding
 * a slot takes the table's mutex. A slot is empty (NULL), holds a value, or is held by one
 * caller between gsr_table_take / gsr_table_reserve and gsr_table_release: a held slot
 * reads as empty but is not reused, so two threads cannot both take the same value.
 *
 * A table is either append-only (handles: a number once returned is never reused, so a
 * freed one stays detectable) or reused (requests: gsr_table_reserve takes the first empty
 * slot); the two kinds of growth are not meant to be mixed in one table. */
#ifndef GSR_FORTRAN_TABLE_H
#define GSR_FORTRAN_TABLE_H

#include <pthread.h>
#include <stdatomic.h>

#define GSR_TABLE_CHUNKS 27 /* 16 * (2^27 - 1) slots: every index an int can hold, nearly */

struct gsr_table {
  _Atomic(_Atomic(void *) *) chunks[GSR_TABLE_CHUNKS];
  atomic_int count;        /* slots handed out so far: indices 0 .. count - 1 */
  pthread_mutex_t growing; /* taken by gsr_table_append and gsr_table_reserve only */
};

/* For a table of static storage: `static struct gsr_table t = GSR_TABLE_INITIALIZER;`. */
#define GSR_TABLE_INITIALIZER \
  { {NULL}, 0, PTHREAD_MUTEX_INITIALIZER }

/* Puts `value` (not NULL) in a new slot after all others; its index, or -1 when memory (or
 * the index space) is exhausted. */
int gsr_table_append(struct gsr_table *table, void *value);

/* Holds the first empty slot (growing the table if none is); its index, or -1 when memory
 * is exhausted. The caller fills it with gsr_table_release. */
int gsr_table_reserve(struct gsr_table *table);

/* The number of slots handed out: an index below it was returned once, one above never. */
int gsr_table_count(const struct gsr_table *table);

/* The value in slot `index`; NULL if the slot is empty or held, or was never handed out. */
void *gsr_table_get(const struct gsr_table *table, int index);

/* Holds slot `index` and returns its value; NULL (and nothing held) if it was empty, held or
 * never handed out. Of two threads taking the same slot, one gets the value. */
void *gsr_table_take(struct gsr_table *table, int index);

/* gsr_table_take, telling why it returned NULL: *held is 1 if the slot was held by another
 * caller at that moment (a value to come back for), 0 if it was empty or never handed out. */
void *gsr_table_take_or_held(struct gsr_table *table, int index, int *held);

/* Ends the hold on slot `index` (from gsr_table_take or gsr_table_reserve): it holds `value`
 * from now on, or is empty if `value` is NULL. */
void gsr_table_release(struct gsr_table *table, int index, void *value);

#endif
