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
  slong id = 1; /* long long; the typedef keeps C89 -pedantic quiet */
  gs_dom dom = gs_slong;
  gs_op op = gs_bpr;
  gs_method method = gs_all_reduce;
  int *p = tmalloc(int, 2);
  (void)world;
  c.id = u, c.np = u;
  p = trealloc(int, p, 4);
  free(p);
  p = tcalloc(int, 1);
  free(p);
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
  {
    ulong big = 1;
    u += (uint)big;
  }
#endif
  return (int)c.id + s + (int)id + (int)dom + (int)op + (int)method + (gs_dom_n == 5) + (gs_slong == gs_long_long) +
         GSR_SUCCESS;
}
