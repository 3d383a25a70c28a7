/* Compiled as C89, C99 and C11 with -Wall -Wextra -pedantic -Werror (tests/capi/CMakeLists.txt):
 * the public C headers must stay plain ISO C. gs.h first, then gslib.h (gslib_header_check.c
 * includes them the other way round). Run by header_check_main.c: the codes a C program sees
 * under each standard are the documented ABI values (docs/c-api.md). */
#include <gsr/gs.h>
#include <gsr/gslib.h>

int gsr_header_check_c(void);
int gsr_header_check_c(void) {
  gs_dom dom = gs_double;
  gs_op op = gs_add;
  gs_method method = gs_auto;
  slong id = -1;
  int ok = 1;
  ok &= dom == 0 && gs_float == 1 && gs_int == 2 && gs_long == 3 && gs_long_long == 4 && gs_dom_n == 5;
  ok &= op == 0 && gs_mul == 1 && gs_min == 2 && gs_max == 3 && gs_bpr == 4 && gs_op_n == 5;
  ok &= method == 0 && gs_pairwise == 1 && gs_crystal_router == 2 && gs_all_reduce == 3 && gs_neighbor == 4;
  ok &= GSR_SUCCESS == 0 && sizeof id == 8 && id < 0;
  return ok;
}
