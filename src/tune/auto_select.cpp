// tune/auto_select.cpp — see auto_select.hpp. Collectives beyond the candidates' own setup
// and timed calls: two small allreduces (predictions, then measurements).
#include "tune/auto_select.hpp"

#include "mpi/checked.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <vector>

namespace gsr::detail {

namespace {

std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char text[200];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

}  // namespace

double time_exchange(Exchange& exchange, const Plan& plan, int warmup, int repetitions) {
  Workspace ws;
  ws.info = CallInfo{Domain::float64, Op::add, Transpose::no, 1, false};
  ws.kernels = find_kernels(Domain::float64, Op::add);
  ws.partials.resize(plan.shared_groups * sizeof(double));
  ws.kernels->fill_identity(ws.partials.data(), plan.shared_groups);
  std::vector<double> each;
  for (int i = 0; i < warmup + repetitions; ++i) {
    const double begin = MPI_Wtime();
    exchange.start(ws);
    exchange.finish(ws);
    if (i >= warmup) each.push_back(MPI_Wtime() - begin);
  }
  if (each.empty()) return 0.0;
  std::nth_element(each.begin(), each.begin() + each.size() / 2, each.end());
  return each[each.size() / 2];
}

AutoChoice choose_method(const ExchangeInputs& in, const CostModel& model) {
  const double begin = MPI_Wtime();
  const Plan& plan = in.plan;
  MPI_Comm comm = in.comm;
  AutoChoice choice;
  constexpr std::size_t count = std::size(concrete_methods);

  // Nothing crosses ranks: every method is free, and pairwise does the least.
  if (plan.ranks == 1 || plan.global_shared_ids == 0) {
    for (Method m : concrete_methods)
      choice.timings.push_back(MethodTiming{m, -1.0, 0.0, "not measured: no id is shared between ranks"});
    choice.exchange = build_exchange(Method::pairwise, in).exchange;
    choice.reason = "auto: no id is shared between ranks, nothing to measure";
    choice.seconds = MPI_Wtime() - begin;
    return choice;
  }

  // Build every candidate (their setups are collective) and predict its cost.
  std::unique_ptr<Exchange> candidates[count];
  double predicted[count];
  for (std::size_t i = 0; i < count; ++i) {
    BuiltExchange built = method_registry()[i].build(in, auto_limits);
    candidates[i] = std::move(built.exchange);
    predicted[i] = candidates[i] ? model.predict(candidates[i]->stages(), sizeof(double)) : -1.0;
    choice.timings.push_back(
        MethodTiming{concrete_methods[i], -1.0, 0.0, built.unavailable.empty() ? "" : "excluded: " + built.unavailable});
  }
  GSR_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, predicted, static_cast<int>(count), MPI_DOUBLE, MPI_MAX, comm));

  double best_prediction = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < count; ++i)
    if (candidates[i]) best_prediction = std::min(best_prediction, predicted[i]);

  // Measure the candidates the model does not rule out; the slowest rank's time counts.
  double measured[count];
  for (std::size_t i = 0; i < count; ++i) {
    measured[i] = -1.0;
    if (!candidates[i]) continue;
    choice.timings[i].predicted_seconds = predicted[i];
    if (predicted[i] > hopeless_factor * best_prediction) {
      choice.timings[i].note =
          format("skipped: the model predicts %.3g us, %.1f times the best prediction", predicted[i] * 1e6,
                 predicted[i] / best_prediction);
      candidates[i].reset();
      continue;
    }
    measured[i] = time_exchange(*candidates[i], plan, auto_warmup_calls, auto_timed_calls);
  }
  GSR_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, measured, static_cast<int>(count), MPI_DOUBLE, MPI_MAX, comm));

  // Strictly faster wins; ties keep the earlier method in registry order.
  std::size_t winner = count, runner_up = count;
  for (std::size_t i = 0; i < count; ++i) {
    choice.timings[i].seconds_per_call = candidates[i] ? measured[i] : -1.0;
    if (!candidates[i]) continue;
    if (winner == count || measured[i] < measured[winner]) {
      runner_up = winner;
      winner = i;
    } else if (runner_up == count || measured[i] < measured[runner_up]) {
      runner_up = i;
    }
  }
  choice.exchange = std::move(candidates[winner]);
  choice.reason = "auto: fastest measured, " + format("%.3g us per call", measured[winner] * 1e6) +
                  " (slowest rank's median of " + std::to_string(auto_timed_calls) + " timed calls after " +
                  std::to_string(auto_warmup_calls) + " warm-up)";
  if (runner_up != count)
    choice.reason += "; next " + std::string(to_string(concrete_methods[runner_up])) +
                     format(" at %.3g us (%.2fx)", measured[runner_up] * 1e6, measured[runner_up] / measured[winner]);
  choice.seconds = MPI_Wtime() - begin;
  return choice;
}

}  // namespace gsr::detail
