// tune/auto_select.cpp — see auto_select.hpp. Collectives beyond the candidates' own setup
// and timed calls: small allreduces of the predictions, and when the candidates are timed
// of their measurements (twice when the calls are cheap enough to time more of them).
#include "tune/auto_select.hpp"

#include "mpi/checked.hpp"
#include "mpi/polled.hpp"

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

std::vector<double> time_exchanges(const std::vector<Exchange*>& exchanges, const CallPath& call, MPI_Comm comm,
                                   double timeout, int* timed_calls) {
  const std::size_t count = exchanges.size();
  // One workspace per exchange (its first call binds it, exchange.hpp), as the handle
  // keeps a slot per method.
  std::vector<Workspace> spaces(count);
  std::vector<std::vector<double>> each(count);
  for (std::size_t i = 0; i < count; ++i) {
    spaces[i].info = CallInfo{Domain::float64, Op::add, Transpose::no, 1, false};
    spaces[i].kernels = find_kernels(Domain::float64, Op::add);
  }
  // One call of every exchange in turn; `timed`: keep its time.
  auto round = [&](bool timed) {
    for (std::size_t i = 0; i < count; ++i) {
      if (!exchanges[i]) continue;
      Workspace& ws = spaces[i];
      ++ws.info.call;  // a tag of its own (CallTags)
      const double begin = MPI_Wtime();
      call(*exchanges[i], ws);
      if (timed) each[i].push_back(MPI_Wtime() - begin);
    }
  };
  // Medians, the slowest rank's: the same on every rank.
  auto medians = [&] {
    std::vector<double> out(count, -1.0);
    for (std::size_t i = 0; i < count; ++i) {
      if (each[i].empty()) continue;
      std::vector<double> sorted = each[i];
      std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
      out[i] = sorted[sorted.size() / 2];
    }
    allreduce_polled(out.data(), static_cast<int>(count), MPI_DOUBLE, MPI_MAX, comm, timeout);
    return out;
  };
  for (int i = 0; i < auto_warmup_calls; ++i) round(false);
  for (int i = 0; i < auto_timed_calls; ++i) round(true);
  std::vector<double> measured = medians();
  double fastest = -1;
  for (const double t : measured)
    if (t >= 0 && (fastest < 0 || t < fastest)) fastest = t;
  if (timed_calls) *timed_calls = auto_timed_calls;
  if (fastest < 0 || fastest >= auto_cheap_seconds) return measured;
  for (int i = auto_timed_calls; i < auto_cheap_calls; ++i) round(true);
  if (timed_calls) *timed_calls = auto_cheap_calls;
  return medians();
}

const std::vector<std::size_t>& tabulated_entry_bytes() {
  static const std::vector<std::size_t> sizes = [] {
    std::vector<std::size_t> out;
    for (std::size_t w = 4; w <= 64; w += 4) out.push_back(w);
    for (std::size_t w = 64; w < (std::size_t(1) << 20); w *= 2) {
      out.push_back(w + w / 2);
      out.push_back(2 * w);
    }
    return out;
  }();
  return sizes;
}

std::size_t size_row(const std::vector<std::size_t>& sizes, std::size_t entry_bytes) {
  const auto above = std::upper_bound(sizes.begin(), sizes.end(), entry_bytes);
  return above == sizes.begin() ? 0 : static_cast<std::size_t>(above - sizes.begin()) - 1;
}

std::vector<int> choose_by_size(const std::vector<std::vector<double>>& predicted, const std::vector<double>& measured,
                                std::size_t measured_row, int chosen, bool calibrated) {
  const std::size_t candidates = predicted.size();
  const std::size_t sizes = candidates == 0 ? 0 : predicted.front().size();
  // The model's error at the measured size, per candidate, taken as a per-call cost.
  std::vector<double> shift(candidates, 0.0);
  bool any_measured = false;
  double largest_shift = -std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < candidates; ++c)
    if (measured[c] >= 0 && predicted[c][measured_row] >= 0) {
      shift[c] = measured[c] - predicted[c][measured_row];
      largest_shift = std::max(largest_shift, shift[c]);
      any_measured = true;
    }
  for (std::size_t c = 0; c < candidates; ++c)
    if (any_measured && measured[c] < 0) shift[c] = largest_shift;

  std::vector<int> out(sizes, chosen);
  for (std::size_t s = 0; s < sizes; ++s) {
    std::vector<double> column(candidates);
    for (std::size_t c = 0; c < candidates; ++c) column[c] = predicted[c][s];
    if (calibrated) {
      const int decided = model_choice(column);
      if (decided >= 0) {
        out[s] = decided;
        continue;
      }
    }
    if (!any_measured) continue;
    int best = -1;
    std::vector<double> estimate(candidates, -1.0);
    for (std::size_t c = 0; c < candidates; ++c) {
      if (column[c] < 0) continue;
      estimate[c] = std::max(column[c] + shift[c], 0.0);
      if (best < 0 || estimate[c] < estimate[static_cast<std::size_t>(best)]) best = static_cast<int>(c);
    }
    if (best < 0 || best == chosen) continue;
    const double incumbent = chosen >= 0 ? estimate[static_cast<std::size_t>(chosen)] : -1.0;
    if (incumbent < 0 || estimate[static_cast<std::size_t>(best)] * size_switch_factor < incumbent) out[s] = best;
  }
  return out;
}

namespace {

struct Candidate {
  Method method;
  std::unique_ptr<Exchange> exchange;  // null: unavailable or ruled out (see note)
  std::vector<double> predicted;       // seconds per call at each tabulated size, slowest rank
  double measured = -1.0;              // seconds per call (one double), slowest rank's median
  bool timed = false;                  // a contender for one double (else only for other sizes)
  std::string note;
};

// Every registered method, built (their setups are collective) and predicted at every
// tabulated size. `calibrated` says whether every rank's model came from a machine file
// (reduced with the predictions).
std::vector<Candidate> build_candidates(const ExchangeInputs& in, const CostModel& model,
                                        const std::vector<std::size_t>& sizes, bool& calibrated) {
  std::vector<Candidate> candidates;
  std::vector<double> predicted;
  for (const MethodEntry& entry : method_registry()) {
    BuiltExchange built = entry.build(in, auto_limits);
    Candidate c{entry.method, std::move(built.exchange), {}, -1.0, false, {}};
    if (!c.exchange) c.note = "excluded: " + built.unavailable;
    for (const std::size_t w : sizes)
      predicted.push_back(
          c.exchange ? model.predict(c.method, c.exchange->stages(), w, 1, in.plan.n, in.plan.shared_groups) : -1.0);
    candidates.push_back(std::move(c));
  }
  predicted.push_back(model.calibrated ? 0.0 : 1.0);  // the maximum is 0 only if every rank's is
  allreduce_polled(predicted.data(), static_cast<int>(predicted.size()), MPI_DOUBLE, MPI_MAX, in.comm,
                   in.messages.timeout);
  calibrated = predicted.back() == 0.0;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].exchange)
      candidates[i].predicted.assign(predicted.begin() + static_cast<std::ptrdiff_t>(i * sizes.size()),
                                     predicted.begin() + static_cast<std::ptrdiff_t>((i + 1) * sizes.size()));
    else
      candidates[i].predicted.assign(sizes.size(), -1.0);
  return candidates;
}

double best_at(const std::vector<Candidate>& candidates, std::size_t row) {
  double best = std::numeric_limits<double>::infinity();
  for (const Candidate& c : candidates)
    if (c.exchange) best = std::min(best, c.predicted[row]);
  return best;
}

// Drops the candidates the model says cannot win at any size, and marks as contenders for
// one double those within hopeless_factor of the best there (the same verdict on every
// rank: the predictions were reduced over ranks).
void drop_hopeless(std::vector<Candidate>& candidates, std::size_t row) {
  const std::size_t sizes = candidates.front().predicted.size();
  std::vector<double> best(sizes);
  for (std::size_t s = 0; s < sizes; ++s) best[s] = best_at(candidates, s);
  for (Candidate& c : candidates) {
    if (!c.exchange) continue;
    bool useful = false;
    for (std::size_t s = 0; s < sizes; ++s) useful = useful || c.predicted[s] <= hopeless_factor * best[s];
    c.timed = c.predicted[row] <= hopeless_factor * best[row];
    if (!c.timed)
      c.note = format("not timed: the model predicts %.3g us for one double, %.1f times the best prediction",
                      c.predicted[row] * 1e6, c.predicted[row] / best[row]);
    if (!useful) {
      c.exchange.reset();
      c.predicted.assign(sizes, -1.0);  // no longer a candidate at any size
    }
  }
}

// With a calibrated model, a candidate predicted to win by model_decides_factor or more over
// every other is chosen without timing (the same on every rank: the predictions were
// reduced). Returns the index of the choice, or -1 when the model does not separate them.
int decide_by_model(std::vector<Candidate>& candidates, std::size_t row, const CostModel& model, AutoChoice& choice) {
  std::vector<double> predicted;
  for (const Candidate& c : candidates) predicted.push_back(c.exchange && c.timed ? c.predicted[row] : -1.0);
  const int best = model_choice(predicted);
  if (best < 0) return -1;
  int next = -1;
  for (std::size_t i = 0; i < predicted.size(); ++i)
    if (static_cast<int>(i) != best && predicted[i] >= 0 && (next < 0 || predicted[i] < predicted[next]))
      next = static_cast<int>(i);
  for (Candidate& c : candidates)
    if (c.exchange && c.note.empty()) c.note = "not measured: the calibrated model decided";
  choice.reason =
      "auto: the calibrated model (" + model.source + ") predicts " + format("%.3g us per call", predicted[best] * 1e6);
  if (next >= 0)
    choice.reason += format(", %.2fx faster than ", predicted[next] / predicted[best]) +
                     std::string(to_string(candidates[next].method)) + "; not timed";
  return best;
}

// Times the contenders for one double; the slowest rank's median counts. Returns the calls
// timed per contender.
int measure(std::vector<Candidate>& candidates, const CallPath& call, MPI_Comm comm, double timeout) {
  std::vector<Exchange*> timed(candidates.size(), nullptr);
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].exchange && candidates[i].timed) timed[i] = candidates[i].exchange.get();
  int calls = 0;
  const std::vector<double> measured = time_exchanges(timed, call, comm, timeout, &calls);
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (timed[i]) candidates[i].measured = measured[i];
  return calls;
}

// Strictly faster wins; ties keep the earlier method in registry order.
int pick_fastest(const std::vector<Candidate>& candidates, int calls, AutoChoice& choice) {
  const std::size_t none = candidates.size();
  std::size_t winner = none, runner_up = none;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].exchange || candidates[i].measured < 0) continue;
    const double t = candidates[i].measured;
    if (winner == none || t < candidates[winner].measured) {
      runner_up = winner;
      winner = i;
    } else if (runner_up == none || t < candidates[runner_up].measured) {
      runner_up = i;
    }
  }
  const double best = candidates[winner].measured;
  choice.reason = "auto: fastest measured, " + format("%.3g us per call", best * 1e6) + " (slowest rank's median of " +
                  std::to_string(calls) + " timed calls after " + std::to_string(auto_warmup_calls) +
                  " warm-up, the candidates in turn)";
  if (runner_up != none) {
    const double next = candidates[runner_up].measured;
    choice.reason += "; next " + std::string(to_string(candidates[runner_up].method)) +
                     format(" at %.3g us (%.2fx)", next * 1e6, next / best);
  }
  return static_cast<int>(winner);
}

// The exchanges the size table uses, the one for one double first.
void keep_used(std::vector<Candidate>& candidates, int chosen, const std::vector<int>& by_size, AutoChoice& choice) {
  std::vector<int> slot(candidates.size(), -1);
  auto take = [&](int c) {
    if (slot[static_cast<std::size_t>(c)] < 0) {
      slot[static_cast<std::size_t>(c)] = static_cast<int>(choice.exchanges.size());
      choice.exchanges.push_back(std::move(candidates[static_cast<std::size_t>(c)].exchange));
    }
    return static_cast<std::uint8_t>(slot[static_cast<std::size_t>(c)]);
  };
  take(chosen);
  for (const int c : by_size) choice.exchange_at.push_back(take(c));
}

}  // namespace

AutoChoice choose_method(const ExchangeInputs& in, const CallPath& call, const CostModel& model) {
  const double begin = MPI_Wtime();
  AutoChoice choice;
  if (in.plan.ranks == 1 || in.plan.global_shared_ids == 0) {
    // Nothing crosses ranks: every method is free, and pairwise does the least.
    for (const MethodEntry& entry : method_registry())
      choice.timings.push_back(MethodTiming{entry.method, -1.0, 0.0, "not measured: no id is shared between ranks"});
    choice.exchanges.push_back(build_exchange(Method::pairwise, in).exchange);
    choice.reason = "auto: no id is shared between ranks, nothing to measure";
  } else {
    const std::vector<std::size_t>& sizes = tabulated_entry_bytes();
    const std::size_t row = size_row(sizes, sizeof(double));
    bool calibrated = false;
    std::vector<Candidate> candidates = build_candidates(in, model, sizes, calibrated);
    drop_hopeless(candidates, row);
    int chosen = calibrated ? decide_by_model(candidates, row, model, choice) : -1;
    if (chosen < 0) {
      const int calls = measure(candidates, call, in.comm, in.messages.timeout);
      chosen = pick_fastest(candidates, calls, choice);
    }
    std::vector<std::vector<double>> predicted;
    std::vector<double> measured;
    for (const Candidate& c : candidates) {
      predicted.push_back(c.predicted);  // -1 throughout for a candidate built or dropped out
      measured.push_back(c.measured);
    }
    const std::vector<int> by_size = choose_by_size(predicted, measured, row, chosen, calibrated);
    for (const Candidate& c : candidates)
      choice.timings.push_back(MethodTiming{c.method, c.measured, std::max(c.predicted[row], 0.0), c.note});
    choice.sizes = sizes;
    keep_used(candidates, chosen, by_size, choice);
  }
  choice.seconds = MPI_Wtime() - begin;
  return choice;
}

}  // namespace gsr::detail
