// tune/auto_select.hpp — Method::automatic: measure the candidate methods on this handle's
// plan and keep the fastest, the identical choice on every rank.
#pragma once

#include "exchange/exchange.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gsr::detail {

struct AutoChoice {
  std::unique_ptr<Exchange> exchange;
  std::string reason;
  std::vector<MethodTiming> timings;
  double seconds = 0;  // wall time spent choosing
};

/// Collective over comm.
AutoChoice choose_method(const Plan& plan, MPI_Comm comm);

/// Mean seconds per call of `exchange` on this rank (double values, k = 1), after warm-up.
double time_exchange(Exchange& exchange, const Plan& plan, int warmup, int repetitions);

}  // namespace gsr::detail
