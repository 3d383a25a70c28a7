// core/unique.cpp — gsr::make_unique (gs_unique): one discovery, then the owner rule.
#include "core/mpi_util.hpp"
#include "plan/plan.hpp"
#include "setup/discovery.hpp"

#include <gsr/handle.hpp>

#include <limits>

namespace gsr {

void make_unique(std::span<std::int64_t> ids, MPI_Comm comm) {
  using namespace detail;
  require_communicator(comm, "make_unique");
  collectively(comm, [&] {
    if (ids.data() == nullptr && !ids.empty())
      throw Error(ErrorCode::invalid_argument,
                  "gsr: ids are NULL with n = " + std::to_string(ids.size()) + " entries");
    if (ids.size() >= std::numeric_limits<index_t>::max())
      throw Error(ErrorCode::invalid_argument, "gsr: n = " + std::to_string(ids.size()) +
                                                   " local ids exceed the limit of 2^32 - 1");
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] == std::numeric_limits<std::int64_t>::min())
        throw Error(ErrorCode::invalid_argument,
                    "gsr: id[" + std::to_string(i) + "] = -2^63 has no positive counterpart");
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
