/* Compiled as C89, C99 and C11 with -Wall -Wextra -pedantic -Werror (tests/capi/CMakeLists.txt):
 * the public C headers must stay plain ISO C. gs.h first, then gslib.h (gslib_header_check.c
 * includes them the other way round). */
#include <gsr/gs.h>
#include <gsr/gslib.h>

int gsr_header_check_c(void);
int gsr_header_check_c(void) {
  gs_dom dom = gs_double;
  gs_op op = gs_add;
  gs_method method = gs_auto;
  slong id = 0;
  return (int)id + (int)dom + (int)op + (int)method + GSR_SUCCESS;
}
