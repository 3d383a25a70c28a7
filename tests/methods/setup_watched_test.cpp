// The exchange methods' own setup steps are watched by GSR_TIMEOUT: a rank that never builds
// the method (it skipped the step, or left the setup earlier) costs the others the timeout
// and an Error(timeout), not a hang. The crystal router exchanges its routes with
// point-to-point messages; the neighbor method makes a graph communicator, which MPI only
// offers as a blocking collective (gsr gates it with a polled barrier).
#include "methods_support.hpp"

#include "exchange/registry.hpp"
#include "plan/plan.hpp"
#include "setup/discovery.hpp"

#include <mpi.h>

namespace {

using gsr::Method;
using gsr::detail::BuiltExchange;
using gsr::detail::ExchangeInputs;
using methods_test::world_rank;
using methods_test::world_size;

/// Rank 1 skips building `method`; rank 0 must come back with Error(timeout) after about
/// the 1 s timeout.
void expect_timeout_when_rank_one_skips(Method method) {
  ASSERT_EQ(world_size(), 2);
  // A communicator of the test's own: after a rank gave up, messages and requests of the
  // abandoned step stay on it, so it is never used again (nor freed).
  MPI_Comm comm = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &comm), MPI_SUCCESS);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const std::vector<std::int64_t> ids{1, 2, 3, 10 + world_rank()};  // 1..3 shared by both ranks
  const std::vector<gsr::detail::index_t> order = gsr::detail::entries_by_id(ids);
  const gsr::detail::Topology topo = gsr::detail::discover(ids, order, comm, 0, 60.0);
  const gsr::detail::Plan plan = gsr::detail::build_plan(ids, order, topo, world_rank(), world_size());
  gsr::detail::MessageSettings settings;
  settings.timeout = 1.0;
  const ExchangeInputs inputs{plan, topo.holders, comm, settings};
  if (world_rank() == 0) {
    const double start = MPI_Wtime();
    try {
      const BuiltExchange built = gsr::detail::build_exchange(method, inputs);
      ADD_FAILURE() << to_string(method) << ": setup completed though rank 1 never took part";
    } catch (const gsr::Error& e) {
      EXPECT_EQ(e.code(), gsr::ErrorCode::timeout) << e.what();
      EXPECT_NE(std::string(e.what()).find("GSR_TIMEOUT"), std::string::npos) << e.what();
    }
    const double waited = MPI_Wtime() - start;
    EXPECT_GE(waited, 1.0);
    EXPECT_LT(waited, 10.0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(SetupWatched, CrystalRouterRoutesWithARankMissing) { expect_timeout_when_rank_one_skips(Method::crystal_router); }

TEST(SetupWatched, NeighborGraphWithARankMissing) { expect_timeout_when_rank_one_skips(Method::neighbor); }

}  // namespace
