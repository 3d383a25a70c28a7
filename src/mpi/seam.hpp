// mpi/seam.hpp — where a test makes one rank fail on purpose (a failed allocation, a
// failed duplicate) at a point of its choosing, to check that the other ranks hear of it at
// once (docs/errors.md, "A rank that fails midway").
//
// libgsr reaches each point through `reached`, which it defines as an empty weak function
// (seam.cpp): a release build carries no state and no test logic, only a call that returns.
// A test program links its own strong `reached` (tests/support/failure_seam.cpp, the
// gsr_failure_seam library), which the dynamic linker binds libgsr's calls to, as it binds
// an interposed malloc; that one counts the points and throws where the test asked. None of
// the points is on the gather-scatter call's path.
#pragma once

namespace gsr::detail::seam {

enum class Point {
  wait,           // each wait of a Watch (Watch::begin_wait), after the arguments were agreed on
  scatter_steps,  // the tree steps of a scatter or gather (scatter_steps)
  duplicate,      // a duplicate communicator, once MPI made it, before gsr takes it over
  chunk,          // each chunk after the first of a message cut in chunks (post_send)
};

/// Reached at `point` on this rank. libgsr's own does nothing; a test's may throw
/// (std::bad_alloc, as a failed allocation would).
void reached(Point point);

}  // namespace gsr::detail::seam
