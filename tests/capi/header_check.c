/* Compiled as C89, C99 and C11 with -Wall -Wextra -pedantic -Werror (tests/capi/CMakeLists.txt):
 * the public C header must stay plain ISO C. */
#include <gsr/gs.h>

int gsr_header_check_c(void);
int gsr_header_check_c(void) {
  gs_dom dom = gs_double;
  gs_op op = gs_add;
  gs_method method = gs_auto;
  return (int)dom + (int)op + (int)method + GSR_SUCCESS;
}
