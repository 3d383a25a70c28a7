// tune/auto_select.hpp — Method::automatic: predict each candidate's cost with the
// alpha-beta model, drop the hopeless and the too-large; with a calibrated model, take the
// best prediction if it wins by model_decides_factor; else measure the rest on this
// handle's plan and keep the fastest — the identical choice on every rank (every input to
// the decision is reduced over ranks first).
#pragma once

#include "exchange/registry.hpp"
#include "tune/cost_model.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gsr::detail {

/// allreduce keeps a dense array of every (shared id, holder) slot on every rank. Above this
/// many bytes (8 per slot for one double) its memory and its per-call O(total) zeroing and
/// reduction outweigh any latency it saves, so auto leaves it out (it can still be asked for).
inline constexpr std::uint64_t allreduce_max_dense_bytes = std::uint64_t(32) << 20;
inline constexpr ExchangeLimits auto_limits{allreduce_max_dense_bytes / sizeof(double)};

/// A candidate predicted this many times slower than the best prediction is not measured.
/// The model is crude (one alpha and beta for every pattern), hence the wide margin.
inline constexpr double hopeless_factor = 8.0;

/// With a calibrated model (a machine file, GSR_MACHINE) auto chooses without timing when the
/// best prediction beats every other by this factor: safe with prediction errors up to 30 %
/// either way (1.3 / 0.7 < 2), and then the choice is the same on every run.
inline constexpr double model_decides_factor = 2.0;

/// The candidate a calibrated model picks without timing: the index of the lowest of
/// `predicted` (negative entries: not candidates) if it is at least model_decides_factor
/// times below every other candidate's, else none (-1). A lone candidate is picked.
int model_choice(const std::vector<double>& predicted);

/// Calls per measured candidate: the first ones warm up (buffers, MPI connections) and are
/// not timed; auto keeps the median of the timed ones. Kept small because auto runs at every
/// setup.
inline constexpr int auto_warmup_calls = 1;
inline constexpr int auto_timed_calls = 5;

struct AutoChoice {
  std::unique_ptr<Exchange> exchange;
  std::string reason;
  std::vector<MethodTiming> timings;
  double seconds = 0;  // wall time spent choosing
};

/// Collective over inputs.comm. Every candidate is built through the registry.
AutoChoice choose_method(const ExchangeInputs& inputs, const CostModel& model = {});

/// Median seconds per call of `exchange` on this rank (double values, k = 1), after warm-up:
/// the median shrugs off a call that lost its core to another process.
double time_exchange(Exchange& exchange, const Plan& plan, int warmup, int repetitions);

}  // namespace gsr::detail
