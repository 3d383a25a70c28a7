/* handover.h — a release and an acquire that ThreadSanitizer sees, for the OpenMP tests
 * (tests/capi/threads.c, tests/fortran/threads.f90). libgomp is not built with TSan, so the
 * start and end of a parallel region order nothing for it: the threads' setups and the main
 * thread's later calls on the same handles would be reported as races inside gsr. Every
 * thread calls gsr_test_handover_acquire first in a region and gsr_test_handover_release
 * last; the main thread releases before a region and acquires after it. Outside TSan they
 * cost two atomic operations per region. */
#ifndef GSR_TEST_HANDOVER_H
#define GSR_TEST_HANDOVER_H

void gsr_test_handover_release(void);
void gsr_test_handover_acquire(void);

#endif
