// tools/bench/measure.hpp — gsr-bench's measurement: sets up every contender, times every
// call kind on each of them interleaved with the bounds, derives the touch bounds, times the
// overlap probes (P > 1), and returns the records (setup, memory, bound, call, overlap) that
// the table, the JSON and the CSV are made of. Each call record carries the alpha-beta
// model's prediction for it (tune/cost_model.hpp), slowest rank.
#pragma once

#include "tools/bench/problem.hpp"
#include "tools/bench/report.hpp"
#include "tools/bench/timing.hpp"
#include "tune/cost_model.hpp"

#include <vector>

namespace gsr::tools::bench {

/// Collective. Every record is the same on every rank.
std::vector<Record> measure(const Problem& problem, const Rounds& rounds, const detail::CostModel& model,
                            MPI_Comm comm);

}  // namespace gsr::tools::bench
