// Compiled as C++11, 14, 17 and 20 with -Wall -Wextra -pedantic -Werror
// (tests/capi/CMakeLists.txt). In C++ the enumerations have int as their fixed underlying
// type, so any code a C caller passes is a value they can hold (docs/c-api.md).
#include <gsr/gs.h>

#include <type_traits>

static_assert(std::is_same<std::underlying_type<gs_dom>::type, int>::value, "gs_dom must be based on int");
static_assert(std::is_same<std::underlying_type<gs_op>::type, int>::value, "gs_op must be based on int");
static_assert(std::is_same<std::underlying_type<gs_method>::type, int>::value, "gs_method must be based on int");

int gsr_header_check_cxx();
int gsr_header_check_cxx() { return static_cast<int>(static_cast<gs_dom>(99)) + GSR_SUCCESS; }
