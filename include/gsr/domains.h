/* gsr/domains.h — the value types gsr reduces, listed once. The C++ Domain enum with its
 * names and sizes, the kernels instantiated for it, the C API's gs_dom codes and the
 * Fortran module's codes all follow GSR_FOR_EACH_DOMAIN; a new value type is a new line
 * here (docs/architecture.md), and the compiler then asks for whatever else it needs (its
 * gs_dom code in gs.h, its Fortran constant in fortran/gsr.f90, which tests check).
 *
 *   X(type, domain, name, gs_code, fortran_code)
 *     type          the C type (<stdint.h> names for integers); integer types also get bpr
 *     domain        the gsr::Domain enumerator; its value is the line's position
 *     name          what gsr::to_string and the messages call it
 *     gs_code       gs.h's gs_dom code (gs_long, C's long, maps by its size instead)
 *     fortran_code  the Fortran module's code (gsr_double = 1, ...; fortran/gsr.f90)
 *
 * For gsr's own sources; including it changes nothing else. */
#ifndef GSR_DOMAINS_H
#define GSR_DOMAINS_H

#define GSR_FOR_EACH_DOMAIN(X)               \
  X(double, float64, "double", gs_double, 1) \
  X(float, float32, "float", gs_float, 4)    \
  X(int32_t, int32, "int32", gs_int, 2)      \
  X(int64_t, int64, "int64", gs_long_long, 3)

#endif
