/* Code that defines uint (and slong) as macros itself, as gslib's own types.h does, may still
 * include gs.h and gslib.h: their typedefs step aside for the macros. */
#define uint unsigned int
#define slong long long

#include <gsr/gs.h>
#include "gslib.h"

int gsr_uint_macro_check(void);
int gsr_uint_macro_check(void) {
  uint n = 0;
  slong id = 0;
  return (int)n + (int)id + (int)gs_long_long;
}
