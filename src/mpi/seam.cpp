// mpi/seam.cpp — see seam.hpp. Weak and alone in its file, so no call to it is inlined or
// resolved inside libgsr: a test program's own definition takes its place.
#include "mpi/seam.hpp"

namespace gsr::detail::seam {

[[gnu::weak]] void reached(Point) {}

}  // namespace gsr::detail::seam
