/* gslib.h next to <sys/types.h> (before and after it) and together with gs.h, compiled as
 * C89, C99 and C11, each strict and with the GNU extensions on (where glibc's <sys/types.h>
 * defines uint and ulong itself), with -Wall -Wextra -pedantic -Werror (CMakeLists.txt). */
#include <sys/types.h>

#include "gslib.h"

#include <gsr/gs.h>
#include <sys/types.h>

int gsr_gslib_header_check_c(void);
int gsr_gslib_header_check_c(void) {
  struct comm c;
  comm_ext world = MPI_COMM_WORLD;
  sint s = -1;
  uint u = 1u;
  slong id = -1; /* long long; the typedef keeps C89 -pedantic quiet */
  gs_dom dom = gs_slong;
  gs_op op = gs_bpr;
  gs_method method = gs_all_reduce;
  int ok = 1;
  int *p = tmalloc(int, 2);
  (void)world;
  c.id = u, c.np = u;
  ok &= p != NULL;
  if (p) p[0] = 7, p[1] = 8;
  p = trealloc(int, p, 4);
  ok &= p != NULL && p[0] == 7 && p[1] == 8; /* trealloc keeps what was there */
  free(p);
  p = tcalloc(int, 3);
  ok &= p != NULL && p[0] == 0 && p[2] == 0;
  free(p);
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
  {
    ulong big = 1;
    u += (uint)big;
    ok &= u == 2u && sizeof big == 8;
  }
#endif
  /* gslib's default-build aliases and codes, as gslib's own headers define them */
  ok &= dom == 4 && gs_sint == gs_int && gs_dom_n == 5 && op == 4 && method == 3;
  ok &= c.id == 1u && c.np == 1u && s < 0 && id < 0 && sizeof id == 8 && GSR_SUCCESS == 0;
  return ok;
}
