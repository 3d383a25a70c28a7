/* gsr_fortran.h — the calls of the module's C side (gsr_fortran.c) that gslib's entry
 * points (gslib_fortran.c) share, so both files see one declaration of each. */
#ifndef GSR_FORTRAN_H
#define GSR_FORTRAN_H

#include "gsr/gs.h"
#include "gsr/transfer.h"

#include <stdint.h>

int gsr_f_setup(const slong *id, int n, int fcomm, int check_np, int np, int unique, int method, int verbose,
                const char *call);
void gsr_f_unique(slong *id, int n, int fcomm);
void gsr_f_free(int h);
/* The struct gs_data * behind module handle h; NULL, after reporting, if h is not live. */
struct gs_data *gsr_f_handle_data(int h, const char *call);
void gsr_f_op(int h, void *u, int dom, int op, int transpose, const char *call);
void gsr_f_vec(int h, void *u, int k, int dom, int op, int transpose, const char *call);
void gsr_f_many(int h, void *u1, void *u2, void *u3, void *u4, void *u5, void *u6, int k, int dom, int op,
                int transpose, const char *call);
int gsr_f_iop(int h, void *u, int dom, int op, int transpose, const char *call);
int gsr_f_ivec(int h, void *u, int k, int dom, int op, int transpose, const char *call);
int gsr_f_imany(int h, void *u1, void *u2, void *u3, void *u4, void *u5, void *u6, int k, int dom, int op,
                int transpose, const char *call);
void gsr_f_wait(int r, const char *call);

/* A bad argument found by a shim before a record transfer on `comm`: takes part in the other
 * ranks' transfer so that theirs fails with GSR_ERR_REMOTE quoting it instead of waiting,
 * and records `what` under `call` with GSR_ERR_INVALID_ARGUMENT (abort mode: the job ends). */
void gsr_f_fail_transfer(MPI_Comm comm, const char *call, const char *what);

#endif
