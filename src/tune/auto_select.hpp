// tune/auto_select.hpp — Method::automatic: predict each candidate's cost with the
// alpha-beta model at every tabulated call size, drop the hopeless and the too-large; for
// one double, take the best prediction if a calibrated model has it win by
// model_decides_factor, else time the rest through the handle's own call path (CallPath)
// and keep the fastest; then tabulate the method for every other call size (value size x
// k) from the model, corrected by those measurements. The identical choice on every rank
// (every input to the decision is reduced over ranks first), made once at setup, so no
// call pays for it.
#pragma once

#include "exchange/registry.hpp"
#include "tune/cost_model.hpp"

#include <cstdint>
#include <functional>
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

/// Calls per measured candidate, one call of each candidate in turn so that drift hits all
/// alike: the first ones warm up (buffers, MPI connections) and are not timed; auto keeps
/// the median of the timed ones. auto_timed_calls, kept small because auto runs at every
/// setup; and auto_cheap_calls in all when the fastest median is below auto_cheap_seconds,
/// where a timer tick or one interrupt is a large part of a call and 41 of them cost
/// little (2^3 box at P = 2: 5 calls picked a method 20 % slower in 3 of 10 runs).
inline constexpr int auto_warmup_calls = 1;
inline constexpr int auto_timed_calls = 5;
inline constexpr int auto_cheap_calls = 41;
inline constexpr double auto_cheap_seconds = 50e-6;

/// Bytes per entry (value size x k) at which auto tabulates its choice at setup: every
/// multiple of 4 up to 64 (a float with k up to 16, a double with k up to 8), then 1.5x and 2x steps to
/// 2^20. A call of w bytes per entry uses the choice of the largest tabulated size <= w.
const std::vector<std::size_t>& tabulated_entry_bytes();

/// The entry of `sizes` (ascending) that serves a call of `entry_bytes`: the largest
/// size <= entry_bytes, or the first.
std::size_t size_row(const std::vector<std::size_t>& sizes, std::size_t entry_bytes);

/// The candidate auto uses at each tabulated size. predicted[c][s]: candidate c's predicted
/// seconds per call at size s (negative: not a candidate); measured[c]: its measured
/// seconds at `measured_row` (negative: not measured); chosen: the candidate picked at
/// measured_row. Per size: with a calibrated model, model_choice when it decides; else,
/// with measurements, the lowest prediction shifted by the candidate's measured-minus-
/// predicted at measured_row (the model's error, taken as a per-call cost; candidates not
/// measured get the largest shift); a rival replaces `chosen` only when it wins by more
/// than size_switch_factor. Otherwise `chosen`. Pure: the same inputs give the same table.
std::vector<int> choose_by_size(const std::vector<std::vector<double>>& predicted, const std::vector<double>& measured,
                                std::size_t measured_row, int chosen, bool calibrated);

/// A method other than the one chosen for one double serves a size only when predicted
/// this much faster there: close calls stay on one method, whose timing was measured.
inline constexpr double size_switch_factor = 1.25;

struct AutoChoice {
  std::vector<std::unique_ptr<Exchange>> exchanges;  // [0]: the choice for one double
  std::vector<std::size_t> sizes;                    // tabulated bytes per entry, ascending
  std::vector<std::uint8_t> exchange_at;             // per size: index into exchanges
  std::string reason;
  std::vector<MethodTiming> timings;
  double seconds = 0;  // wall time spent choosing
};

/// One whole call of the handle's own per-call path (the local gather, the exchange, the
/// groups held alone, the fold and scatter) on a scratch array of the handle's entries,
/// through `exchange`, as ws.info says (numbered) with ws.kernels. The handle (core/)
/// supplies it, so auto times the code a call runs, not a copy of it.
using CallPath = std::function<void(Exchange& exchange, Workspace& ws)>;

/// Collective over inputs.comm. Every candidate is built through the registry; the
/// contenders are timed through `call`.
AutoChoice choose_method(const ExchangeInputs& inputs, const CallPath& call, const CostModel& model = {});

/// Times `exchanges` on this rank by calls through `call` (double values added, k = 1),
/// interleaved as above; the median seconds per call of each (the median shrugs off a call
/// that lost its core to another process), reduced with MPI_MAX over `comm`. A null entry
/// is not timed (-1). `timed_calls`, if given, receives the timed calls per exchange. The
/// reductions wait at most `timeout` seconds (GSR_TIMEOUT; polled.hpp); `call` bounds its own
/// waits (setup's passes the handle's timeout to Exchange::finish).
std::vector<double> time_exchanges(const std::vector<Exchange*>& exchanges, const CallPath& call, MPI_Comm comm,
                                   double timeout, int* timed_calls = nullptr);

}  // namespace gsr::detail
