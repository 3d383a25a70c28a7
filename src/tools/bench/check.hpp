// tools/bench/check.hpp — gsr-bench --check: every contender (each method and auto) must
// give bitwise the same result as the first for every call kind, for every op of every
// domain, on ids with flagged and absent entries (both transposes for some). Timings never
// fail a run; this does.
#pragma once

#include <gsr/types.hpp>

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gsr::tools::bench {

struct CheckResult {
  std::size_t comparisons = 0;
  std::vector<std::string> contenders;   // "pairwise", ..., "auto -> pairwise"
  std::vector<std::string> differences;  // one line per comparison that differs
};

/// Collective; the same result on every rank. `inject`: flip one bit of every rank's first
/// value after each call of that method (testing only: shows the check can fail).
CheckResult check_methods(const std::vector<std::int64_t>& ids, MPI_Comm comm, std::optional<Method> inject = {});

}  // namespace gsr::tools::bench
