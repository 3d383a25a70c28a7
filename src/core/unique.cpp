// core/unique.cpp — gsr::make_unique (gs_unique): one discovery, then the owner rule.
#include "mpi/checked.hpp"
#include "plan/plan.hpp"
#include "setup/discovery.hpp"

#include <gsr/handle.hpp>

#include <limits>

namespace gsr {

void make_unique(std::span<std::int64_t> ids, MPI_Comm comm) {
  using namespace detail;
  require_communicator(comm, "make_unique");
  collectively(comm, [&] {
    check_ids(ids);
  });
  MPI_Comm private_comm = MPI_COMM_NULL;
  GSR_MPI_CHECK(MPI_Comm_dup(comm, &private_comm));
  struct Free {
    MPI_Comm& c;
    ~Free() { MPI_Comm_free(&c); }
  } free_comm{private_comm};
  const std::vector<index_t> order = entries_by_id(ids);
  const Topology topo = discover(ids, order, private_comm);
  apply_unique(ids, order, topo, comm_rank(private_comm));
}

}  // namespace gsr
