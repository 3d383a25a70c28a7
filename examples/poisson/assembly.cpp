// poisson/assembly.cpp — the solver's use of gsr: QQ^T, consistent flags, global dots.
#include "assembly.hpp"

#include <stdexcept>

namespace poisson {

namespace {

gsr::Handle timed_setup(std::span<const std::int64_t> ids, MPI_Comm comm, gsr::SetupOptions options, double& seconds) {
  const double start = MPI_Wtime();
  gsr::Handle handle(ids, comm, options);
  seconds = MPI_Wtime() - start;
  return handle;
}

}  // namespace

Assembly::Assembly(std::span<const std::int64_t> ids, MPI_Comm comm, gsr::SetupOptions options, DotWeights weights)
    : comm_(comm), handle_(timed_setup(ids, comm, options, setup_seconds_)), weights_(ids.size(), 1.0) {
  // The weights are part of the setup: not counted with the solver's gs calls.
  const double start = MPI_Wtime();
  if (weights == DotWeights::multiplicity) {
    // QQ^T of ones counts the copies of each node, wherever they live.
    handle_.apply(std::span(weights_), gsr::Op::add);
    for (double& w : weights_) w = 1.0 / w;
  } else {
    // make_unique flags every copy of a node but one, chosen consistently across ranks.
    std::vector<std::int64_t> owned(ids.begin(), ids.end());
    gsr::make_unique(owned, comm);
    for (std::size_t i = 0; i < owned.size(); ++i) weights_[i] = owned[i] > 0 ? 1.0 : 0.0;
  }
  setup_seconds_ += MPI_Wtime() - start;
}

void Assembly::timed(std::span<double> u, gsr::Op op) {
  const double start = MPI_Wtime();
  handle_.apply(u, op);
  gs_seconds_ += MPI_Wtime() - start;
  ++gs_calls_;
}

double Assembly::dot(std::span<const double> a, std::span<const double> b) const {
  double local = 0;
  for (std::size_t i = 0; i < a.size(); ++i) local += weights_[i] * a[i] * b[i];
  double global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm_);
  return global;
}

std::array<double, 2> Assembly::dot2(std::span<const double> a, std::span<const double> b, std::span<const double> c,
                                     std::span<const double> d) const {
  std::array<double, 2> local{0, 0}, global{0, 0};
  for (std::size_t i = 0; i < a.size(); ++i) {
    local[0] += weights_[i] * a[i] * b[i];
    local[1] += weights_[i] * c[i] * d[i];
  }
  MPI_Allreduce(local.data(), global.data(), 2, MPI_DOUBLE, MPI_SUM, comm_);
  return global;
}

}  // namespace poisson
