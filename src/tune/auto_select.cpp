// tune/auto_select.cpp — see auto_select.hpp. Collectives beyond the candidates' own setup
// and timed calls: two small allreduces (predictions, then measurements; the second only
// when the candidates are timed).
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

int model_choice(const std::vector<double>& predicted) {
  int best = -1;
  for (std::size_t i = 0; i < predicted.size(); ++i)
    if (predicted[i] >= 0 && (best < 0 || predicted[i] < predicted[best])) best = static_cast<int>(i);
  if (best < 0) return -1;
  for (std::size_t i = 0; i < predicted.size(); ++i)
    if (static_cast<int>(i) != best && predicted[i] >= 0 && predicted[i] < model_decides_factor * predicted[best])
      return -1;
  return best;
}

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

namespace {

struct Candidate {
  Method method;
  std::unique_ptr<Exchange> exchange;  // null: unavailable or ruled out (see note)
  double predicted = -1.0;             // seconds per call, slowest rank
  double measured = -1.0;              // seconds per call, slowest rank's median
  std::string note;
};

// Every registered method, built (their setups are collective) and predicted. `calibrated`
// says whether every rank's model came from a machine file (reduced with the predictions).
std::vector<Candidate> build_candidates(const ExchangeInputs& in, const CostModel& model, bool& calibrated) {
  std::vector<Candidate> candidates;
  std::vector<double> predicted;
  for (const MethodEntry& entry : method_registry()) {
    BuiltExchange built = entry.build(in, auto_limits);
    Candidate c{entry.method, std::move(built.exchange), -1.0, -1.0, {}};
    if (!c.exchange) c.note = "excluded: " + built.unavailable;
    predicted.push_back(c.exchange ? model.predict(c.method, c.exchange->stages(), sizeof(double), 1, in.plan.n)
                                   : -1.0);
    candidates.push_back(std::move(c));
  }
  predicted.push_back(model.calibrated ? 0.0 : 1.0);  // the maximum is 0 only if every rank's is
  GSR_MPI_CHECK(
      MPI_Allreduce(MPI_IN_PLACE, predicted.data(), static_cast<int>(predicted.size()), MPI_DOUBLE, MPI_MAX, in.comm));
  calibrated = predicted.back() == 0.0;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].exchange) candidates[i].predicted = predicted[i];
  return candidates;
}

// With a calibrated model, a candidate predicted to win by model_decides_factor or more over
// every other is chosen without timing (the same on every rank: the predictions were
// reduced). Returns false when the model does not separate them so clearly.
bool decide_by_model(std::vector<Candidate>& candidates, const CostModel& model, AutoChoice& choice) {
  std::vector<double> predicted;
  for (const Candidate& c : candidates) predicted.push_back(c.exchange ? c.predicted : -1.0);
  const int best = model_choice(predicted);
  if (best < 0) return false;
  int next = -1;
  for (std::size_t i = 0; i < predicted.size(); ++i)
    if (static_cast<int>(i) != best && predicted[i] >= 0 && (next < 0 || predicted[i] < predicted[next]))
      next = static_cast<int>(i);
  for (Candidate& c : candidates) {
    if (c.exchange && c.note.empty()) c.note = "not measured: the calibrated model decided";
    choice.timings.push_back(MethodTiming{c.method, -1.0, std::max(c.predicted, 0.0), c.note});
  }
  choice.reason = "auto: the calibrated model (" + model.source + ") predicts " +
                  format("%.3g us per call", predicted[best] * 1e6);
  if (next >= 0)
    choice.reason += format(", %.2fx faster than ", predicted[next] / predicted[best]) +
                     std::string(to_string(candidates[next].method)) + "; not timed";
  choice.exchange = std::move(candidates[best].exchange);
  return true;
}

// Drops the candidates the model says cannot win (the same verdict on every rank: the
// predictions were reduced over ranks).
void drop_hopeless(std::vector<Candidate>& candidates) {
  double best = std::numeric_limits<double>::infinity();
  for (const Candidate& c : candidates)
    if (c.exchange) best = std::min(best, c.predicted);
  for (Candidate& c : candidates) {
    if (!c.exchange || c.predicted <= hopeless_factor * best) continue;
    c.note = format("skipped: the model predicts %.3g us, %.1f times the best prediction", c.predicted * 1e6,
                    c.predicted / best);
    c.exchange.reset();
  }
}

// Times the remaining candidates; the slowest rank's median counts.
void measure(std::vector<Candidate>& candidates, const Plan& plan, MPI_Comm comm) {
  std::vector<double> measured(candidates.size(), -1.0);
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].exchange)
      measured[i] = time_exchange(*candidates[i].exchange, plan, auto_warmup_calls, auto_timed_calls);
  GSR_MPI_CHECK(
      MPI_Allreduce(MPI_IN_PLACE, measured.data(), static_cast<int>(measured.size()), MPI_DOUBLE, MPI_MAX, comm));
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].exchange) candidates[i].measured = measured[i];
}

// Strictly faster wins; ties keep the earlier method in registry order.
AutoChoice pick_fastest(std::vector<Candidate>& candidates) {
  const std::size_t none = candidates.size();
  std::size_t winner = none, runner_up = none;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].exchange) continue;
    const double t = candidates[i].measured;
    if (winner == none || t < candidates[winner].measured) {
      runner_up = winner;
      winner = i;
    } else if (runner_up == none || t < candidates[runner_up].measured) {
      runner_up = i;
    }
  }
  AutoChoice choice;
  for (const Candidate& c : candidates)
    choice.timings.push_back(MethodTiming{c.method, c.exchange ? c.measured : -1.0, std::max(c.predicted, 0.0), c.note});
  const double best = candidates[winner].measured;
  choice.reason = "auto: fastest measured, " + format("%.3g us per call", best * 1e6) + " (slowest rank's median of " +
                  std::to_string(auto_timed_calls) + " timed calls after " + std::to_string(auto_warmup_calls) +
                  " warm-up)";
  if (runner_up != none) {
    const double next = candidates[runner_up].measured;
    choice.reason += "; next " + std::string(to_string(candidates[runner_up].method)) +
                     format(" at %.3g us (%.2fx)", next * 1e6, next / best);
  }
  choice.exchange = std::move(candidates[winner].exchange);
  return choice;
}

}  // namespace

AutoChoice choose_method(const ExchangeInputs& in, const CostModel& model) {
  const double begin = MPI_Wtime();
  AutoChoice choice;
  if (in.plan.ranks == 1 || in.plan.global_shared_ids == 0) {
    // Nothing crosses ranks: every method is free, and pairwise does the least.
    for (const MethodEntry& entry : method_registry())
      choice.timings.push_back(MethodTiming{entry.method, -1.0, 0.0, "not measured: no id is shared between ranks"});
    choice.exchange = build_exchange(Method::pairwise, in).exchange;
    choice.reason = "auto: no id is shared between ranks, nothing to measure";
  } else {
    bool calibrated = false;
    std::vector<Candidate> candidates = build_candidates(in, model, calibrated);
    drop_hopeless(candidates);
    if (!calibrated || !decide_by_model(candidates, model, choice)) {
      measure(candidates, in.plan, in.comm);
      choice = pick_fastest(candidates);
    }
  }
  choice.seconds = MPI_Wtime() - begin;
  return choice;
}

}  // namespace gsr::detail
