/* gsr/gslib.h — the gather-scatter part of Nek5000's gslib.h, for C and C++ code written
 * against gslib: with -I<prefix>/include/gsr, `#include "gslib.h"` finds this file.
 *
 * Types and codes are those of gslib's default build (global ids long long):
 *   sint = int, uint = unsigned int, slong = long long, ulong = unsigned long long;
 *   gs_dom: gs_double 0, gs_float 1, gs_int 2, gs_long 3, gs_long_long 4, gs_dom_n 5,
 *           gs_sint = gs_int, gs_slong = gs_long_long;
 *   gs_op: gs_add 0, gs_mul 1, gs_min 2, gs_max 3, gs_bpr 4, gs_op_n 5;
 *   gs_method: gs_auto 0, gs_pairwise 1, gs_crystal_router 2, gs_all_reduce 3, and gsr's own
 *              gs_neighbor 4 (one enum, shared with gs.h).
 * The declarations are those of gsr/gs.h (one set, shared); gsr's own calls (error modes,
 * gsr_method_name) are left out here and come with #include <gsr/gs.h>.
 * docs/c-api.md lists what differs from gslib.
 */
#ifndef GSR_GSLIB_H
#define GSR_GSLIB_H

/* gslib.h brings these in, and code written for it relies on that (printf, memcpy, ...). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Always built on MPI: code that tests this macro takes its MPI branch. */
#ifndef GSLIB_USE_MPI
#define GSLIB_USE_MPI 1
#endif

#define GSR_GSLIB_INCLUDING_GS
#include "gs.h"
#undef GSR_GSLIB_INCLUDING_GS

/* gslib's ulong. glibc's <sys/types.h> may already typedef ulong as unsigned long, so, as in
 * gslib, it is a macro (after that header, which gs.h includes, so its typedef comes first). */
#ifndef ulong
#define ulong unsigned long long
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef MPI_Comm comm_ext;
typedef MPI_Request comm_req;

/* Typed allocation as in gslib's mem.h: `T *p = tmalloc(T, count);`, released with free().
 * A failed allocation (or count * sizeof(T) overflowing) prints the file and line on stderr
 * and aborts the job, so the result never needs a NULL check. */
void *gsr_gslib_alloc(void *ptr, size_t count, size_t size, int zero, const char *file, unsigned line);
#define tmalloc(type, count) ((type *)gsr_gslib_alloc(NULL, (count), sizeof(type), 0, __FILE__, __LINE__))
#define tcalloc(type, count) ((type *)gsr_gslib_alloc(NULL, (count), sizeof(type), 1, __FILE__, __LINE__))
#define trealloc(type, ptr, count) ((type *)gsr_gslib_alloc((ptr), (count), sizeof(type), 0, __FILE__, __LINE__))

#ifdef __cplusplus
}
#endif
#endif /* GSR_GSLIB_H */
