/* capi/shim.h — what the library's other language shims (fortran/) need from the C layer
 * beyond gs.h: one error record shared with it, and a way to take part in a call whose
 * arguments the shim already found bad. Internal: not installed, not for users. */
#ifndef GSR_CAPI_SHIM_H
#define GSR_CAPI_SHIM_H

#include "gsr/gs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Between enter and leave, failures of C entry points are recorded under `call` (the
 * shim's own name for the call, e.g. "gs_op") instead of the C function's name. */
void gsr_shim_enter(const char *call);
void gsr_shim_leave(void);

/* Records a failure the shim found itself (abort mode: prints it and aborts the job). */
void gsr_shim_fail(int code, const char *call, const char *message);

/* Takes part in one call of `gsh` without data, so the other ranks' matching call fails
 * with GSR_ERR_REMOTE instead of waiting, then records the failure as gsr_shim_fail. */
void gsr_shim_fail_call(struct gs_data *gsh, int code, const char *call, const char *message);

/* The most recent failure, kept until gsr_shim_clear (or gsr_clear_error). */
int gsr_shim_last_failure(void);
const char *gsr_shim_last_failure_message(void);
void gsr_shim_clear(void);

#ifdef __cplusplus
}
#endif

#endif /* GSR_CAPI_SHIM_H */
