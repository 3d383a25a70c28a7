/* Code that defines uint (and slong) as macros itself, as gslib's own types.h does, may still
 * include gs.h and gslib.h: their typedefs step aside for the macros. */
#define uint unsigned int
#define slong long long

#include <gsr/gs.h>
#include "gslib.h"

int gsr_uint_macro_check(void);
int gsr_uint_macro_check(void) {
  uint n = 0u - 1u; /* the macro's unsigned int */
  slong id = -1;
  return n > 0u && id < 0 && sizeof id == 8 && gs_long_long == 4;
}
