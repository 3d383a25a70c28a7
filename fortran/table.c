/* table.c — see table.h. */
#include "table.h"

#include <limits.h>
#include <stdlib.h>

#define FIRST_CHUNK_SLOTS 16
#define MAX_SLOTS (FIRST_CHUNK_SLOTS * ((1 << GSR_TABLE_CHUNKS) - 1))

/* What a held slot holds: an address no caller's value can have. */
static const char held_mark;
#define HELD ((void *)&held_mark)

_Static_assert(MAX_SLOTS > 0 && MAX_SLOTS <= INT_MAX, "the slots must be numbered by an int");

/* Slot `index` lies in chunk `*chunk` at `*offset`: chunk c starts at index 16 * (2^c - 1). */
static void locate(int index, int *chunk, int *offset) {
  const unsigned shifted = (unsigned)index + FIRST_CHUNK_SLOTS;
  int c = 0;
  while (shifted >> (c + 1) >= FIRST_CHUNK_SLOTS) ++c;
  *chunk = c;
  *offset = (int)(shifted - ((unsigned)FIRST_CHUNK_SLOTS << c));
}

/* The slot of an index below the count (read with acquire, so its chunk is visible). */
static _Atomic(void *) *slot(const struct gsr_table *table, int index) {
  int chunk, offset;
  locate(index, &chunk, &offset);
  return atomic_load_explicit(&table->chunks[chunk], memory_order_acquire) + offset;
}

/* Under the mutex: makes slot `count` exist, filled with `value`, and publishes the new count.
 * -1 when memory or the index space is exhausted. */
static int grow(struct gsr_table *table, void *value) {
  const int index = atomic_load_explicit(&table->count, memory_order_relaxed);
  if (index >= MAX_SLOTS) return -1;
  int chunk, offset;
  locate(index, &chunk, &offset);
  if (offset == 0) {
    const size_t slots = (size_t)FIRST_CHUNK_SLOTS << chunk;
    _Atomic(void *) *fresh = malloc(slots * sizeof *fresh);
    if (!fresh) return -1;
    for (size_t i = 0; i < slots; ++i) atomic_init(&fresh[i], NULL);
    atomic_store_explicit(&table->chunks[chunk], fresh, memory_order_release);
  }
  atomic_store_explicit(slot(table, index), value, memory_order_release);
  atomic_store_explicit(&table->count, index + 1, memory_order_release);
  return index;
}

int gsr_table_append(struct gsr_table *table, void *value) {
  pthread_mutex_lock(&table->growing);
  const int index = grow(table, value);
  pthread_mutex_unlock(&table->growing);
  return index;
}

int gsr_table_reserve(struct gsr_table *table) {
  pthread_mutex_lock(&table->growing);
  const int count = atomic_load_explicit(&table->count, memory_order_relaxed);
  int index = -1;
  for (int i = 0; i < count && index < 0; ++i) {
    void *empty = NULL;
    if (atomic_compare_exchange_strong(slot(table, i), &empty, HELD)) index = i;
  }
  if (index < 0) index = grow(table, HELD);
  pthread_mutex_unlock(&table->growing);
  return index;
}

int gsr_table_count(const struct gsr_table *table) { return atomic_load_explicit(&table->count, memory_order_acquire); }

void *gsr_table_get(const struct gsr_table *table, int index) {
  if (index < 0 || index >= gsr_table_count(table)) return NULL;
  void *value = atomic_load_explicit(slot(table, index), memory_order_acquire);
  return value == HELD ? NULL : value;
}

void *gsr_table_take_or_held(struct gsr_table *table, int index, int *held) {
  *held = 0;
  if (index < 0 || index >= gsr_table_count(table)) return NULL;
  _Atomic(void *) *at = slot(table, index);
  void *value = atomic_load_explicit(at, memory_order_acquire);
  while (value && value != HELD)
    if (atomic_compare_exchange_weak_explicit(at, &value, HELD, memory_order_acq_rel, memory_order_acquire))
      return value;
  *held = value == HELD;
  return NULL;
}

void *gsr_table_take(struct gsr_table *table, int index) {
  int held;
  return gsr_table_take_or_held(table, index, &held);
}

void gsr_table_release(struct gsr_table *table, int index, void *value) {
  atomic_store_explicit(slot(table, index), value, memory_order_release);
}
