// poisson/assembly.hpp — everything the solver does across element boundaries, on one
// gsr::Handle built from the mesh's global node ids:
//   sum()  QQ^T with op add: direct stiffness summation of element contributions;
//   min()  QQ^T with op min: makes a per-copy flag (the Dirichlet mask) agree on all copies;
//   dot()  the inner product of two continuous (already summed) vectors, counting each
//          global node once: sum_i weight_i a_i b_i, then one MPI_Allreduce.
// Every gs call is timed, so the solver can report time in gs against time elsewhere.
#pragma once

#include <gsr/handle.hpp>

#include <mpi.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace poisson {

/// How dot() counts a global node held by several entries (on one rank or several).
enum class DotWeights {
  multiplicity,  // weight 1/m, m = number of copies, itself computed as QQ^T of ones
  owner,         // weight 1 on the one copy gsr::make_unique leaves unflagged, 0 elsewhere
};

class Assembly {
public:
  Assembly(std::span<const std::int64_t> ids, MPI_Comm comm, gsr::SetupOptions options, DotWeights weights);

  void sum(std::span<double> u) { timed(u, gsr::Op::add); }
  void min(std::span<double> u) { timed(u, gsr::Op::min); }

  double dot(std::span<const double> a, std::span<const double> b) const;
  /// Two inner products with one reduction: {a.b, c.d}.
  std::array<double, 2> dot2(std::span<const double> a, std::span<const double> b, std::span<const double> c,
                             std::span<const double> d) const;

  /// The per-entry weights dot() uses (sum over all ranks of the weights = global nodes).
  const std::vector<double>& weights() const noexcept { return weights_; }

  const gsr::Handle& handle() const noexcept { return handle_; }
  MPI_Comm comm() const noexcept { return comm_; }
  double gs_seconds() const noexcept { return gs_seconds_; }
  long gs_calls() const noexcept { return gs_calls_; }
  /// Handle construction plus the dot weights.
  double setup_seconds() const noexcept { return setup_seconds_; }

private:
  void timed(std::span<double> u, gsr::Op op);

  MPI_Comm comm_;
  double setup_seconds_ = 0;
  gsr::Handle handle_;
  std::vector<double> weights_;
  double gs_seconds_ = 0;
  long gs_calls_ = 0;
};

}  // namespace poisson
