/* Runs one header check (GSR_HEADER_CHECK names its function, compiled under one C or C++
 * standard by tests/capi/CMakeLists.txt): it returns 1 when every code and type the program
 * saw is the documented one. Exits 1 otherwise, so a header that compiles but changed a code
 * fails a test, not only a build. */
#include <stdio.h>

int GSR_HEADER_CHECK(void);

#define GSR_STRING(x) #x
#define GSR_NAME(x) GSR_STRING(x)

int main(void) {
  if (GSR_HEADER_CHECK() == 1) return 0;
  fprintf(stderr, "%s: a code or type of the public headers differs from its documented value\n",
          GSR_NAME(GSR_HEADER_CHECK));
  return 1;
}
