// tools/bench/timing.hpp — rounds of timed batches. A probe is anything gsr-bench times (one
// contender's call kind, one bound); probes that touch the same data form a group (one call
// kind on every contender). Every round runs every probe once untimed, then `calls` times
// back to back, the groups in a fixed order and the probes of a group in an order that
// rotates from round to round, so drift over the run (frequency, other jobs) hits all
// alike and no probe is always the one that follows another group. The result per probe is
// the median over the rounds of the slowest rank's seconds per call.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace gsr::tools::bench {

using Probe = std::function<void()>;

struct Rounds {
  int repeats = 11;  // rounds
  int calls = 10;    // calls per probe and round
};

/// Collective: every rank passes the same groups. The medians come group after group, in
/// the order of the probes within each group.
std::vector<double> time_rounds(const std::vector<std::vector<Probe>>& groups, const Rounds& rounds, MPI_Comm comm);

/// Collective: the largest of every rank's value (the slowest rank, the fullest one).
double max_over_ranks(double value, MPI_Comm comm);
std::int64_t max_over_ranks(std::size_t count, MPI_Comm comm);

/// The median (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

}  // namespace gsr::tools::bench
