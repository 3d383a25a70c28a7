// mpi/keeper.hpp — memory MPI may still write after gsr stopped waiting for it. When a rank
// never joins (GSR_TIMEOUT), gsr gives up on a call, but the operation stays posted: a
// collective's request cannot be freed, and a freed receive request may still be filled
// when the late rank's message arrives. Its buffers, counts and requests are therefore
// handed here instead of being freed, and stay reachable until the process exits.
#pragma once

#include <memory>
#include <utility>

namespace gsr::detail {

/// Keeps `remains` alive until exit (thread-safe).
void keep_until_exit(std::shared_ptr<void> remains);

/// Moves `thing` into the keeper.
template <class T>
void keep_until_exit(T&& thing) {
  keep_until_exit(std::shared_ptr<void>(std::make_shared<std::decay_t<T>>(std::forward<T>(thing))));
}

}  // namespace gsr::detail
