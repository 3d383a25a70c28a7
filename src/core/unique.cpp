// core/unique.cpp — gsr::make_unique (gs_unique): one discovery on a private communicator,
// then the owner rule of setup/unique.hpp.
#include "mpi/checked.hpp"
#include "mpi/comm.hpp"
#include "mpi/threads.hpp"
#include "setup/discovery.hpp"
#include "setup/unique.hpp"

#include <gsr/handle.hpp>

namespace gsr {

void make_unique(std::span<std::int64_t> ids, MPI_Comm comm) {
  using namespace detail;
  const ThreadEntry entry(nullptr);
  require_communicator(comm, "make_unique");
  // make_unique takes no options: GSR_TIMEOUT, or the default if it is malformed (as setup
  // would report), and messages cut only where MPI must.
  const double timeout = timeout_or_default({});
  collectively(comm, timeout, [&] { check_ids(ids); });
  const OwnedComm owned(comm, timeout);
  const std::vector<index_t> order = entries_by_id(ids);
  const Topology topo = discover(ids, order, owned.get(), 0, timeout);
  apply_unique(ids, order, topo, owned.rank());
}

}  // namespace gsr
