// Compiled as C++11, 14, 17 and 20 with -Wall -Wextra -pedantic -Werror
// (tests/capi/CMakeLists.txt). In C++ the enumerations have int as their fixed underlying
// type, so any code a C caller passes is a value they can hold (docs/c-api.md).
#include <gsr/gs.h>
#include <gsr/gslib.h>
#include <sys/types.h>

#include <type_traits>

static_assert(std::is_same<std::underlying_type<gs_dom>::type, int>::value, "gs_dom must be based on int");
static_assert(std::is_same<std::underlying_type<gs_op>::type, int>::value, "gs_op must be based on int");
static_assert(std::is_same<std::underlying_type<gs_method>::type, int>::value, "gs_method must be based on int");

// gslib's default build (global ids long long); gs.h and gslib.h share these.
static_assert(std::is_same<slong, long long>::value, "slong must be long long");
static_assert(std::is_same<ulong, unsigned long long>::value, "ulong must be unsigned long long");
static_assert(std::is_same<sint, int>::value && std::is_same<uint, unsigned int>::value, "sint/uint must be int");
static_assert(gs_double == 0 && gs_float == 1 && gs_int == 2 && gs_long == 3 && gs_long_long == 4 && gs_dom_n == 5,
              "gslib's gs_dom values");
static_assert(gs_sint == gs_int && gs_slong == gs_long_long, "gslib's default-build aliases");
static_assert(gs_add == 0 && gs_mul == 1 && gs_min == 2 && gs_max == 3 && gs_bpr == 4 && gs_op_n == 5, "gs_op");
static_assert(gs_auto == 0 && gs_pairwise == 1 && gs_crystal_router == 2 && gs_all_reduce == 3, "gs_method");
static_assert(std::is_same<comm_ext, MPI_Comm>::value, "comm_ext is MPI_Comm");

// A code outside the enumerators (what a C caller may pass) keeps its value in C++.
extern "C" int gsr_header_check_cxx();
extern "C" int gsr_header_check_cxx() { return static_cast<int>(static_cast<gs_dom>(99)) == 99 && GSR_SUCCESS == 0; }
