/* handover.c — see handover.h. One counter: every release is a read-modify-write, so an
 * acquire that reads it synchronizes with every release made before. */
#include "handover.h"

#include <stdatomic.h>

static atomic_int handovers;

void gsr_test_handover_release(void) { atomic_fetch_add_explicit(&handovers, 1, memory_order_release); }

void gsr_test_handover_acquire(void) { (void)atomic_load_explicit(&handovers, memory_order_acquire); }
