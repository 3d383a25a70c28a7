// tools/bench/timing.hpp — rounds of timed batches. A probe is anything gsr-bench times (one
// contender's call kind, one bound). Every round runs each probe `calls` times back to back,
// all probes in one fixed order, so drift over the run (frequency, other jobs) hits them all
// alike; the result per probe is the median over the rounds of the slowest rank's seconds
// per call.
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

/// Collective: every rank passes the same probes in the same order. Each probe first runs
/// once untimed (warm-up: buffers, first-touch pages).
std::vector<double> time_rounds(const std::vector<Probe>& probes, const Rounds& rounds, MPI_Comm comm);

/// Collective: the largest of every rank's value (the slowest rank, the fullest one).
double max_over_ranks(double value, MPI_Comm comm);
std::int64_t max_over_ranks(std::size_t count, MPI_Comm comm);

/// The median (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

}  // namespace gsr::tools::bench
