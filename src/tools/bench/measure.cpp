// tools/bench/measure.cpp — gsr-bench's measurement in named steps: contenders, bounds,
// probes, rounds, records.
#include "tools/bench/measure.hpp"

#include "tools/bench/bounds.hpp"
#include "tools/bench/calls.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <memory>

namespace gsr::tools::bench {
namespace {

/// What one probe measures, to turn its median into a record.
struct Slot {
  std::string bound;  // "stream", "wire" or "round"; empty for a call
  std::size_t contender = 0;
  CallKind kind;
  std::size_t k = 1;
};

/// Stream and wire for every k of the call kinds, and one round, on their own communicator.
struct Bounds {
  std::vector<std::size_t> ks;
  std::vector<std::unique_ptr<StreamBound>> stream;
  std::vector<std::unique_ptr<WireBound>> wire;
  std::unique_ptr<RoundBound> round;
};

Bounds make_bounds(std::size_t n, std::span<const MessageStats> messages, MPI_Comm comm) {
  Bounds bounds;
  for (const CallKind& kind : call_kinds())
    if (std::find(bounds.ks.begin(), bounds.ks.end(), kind.k) == bounds.ks.end()) bounds.ks.push_back(kind.k);
  for (const std::size_t k : bounds.ks) {
    bounds.stream.push_back(std::make_unique<StreamBound>(n * k));
    bounds.wire.push_back(std::make_unique<WireBound>(messages, k, comm));
  }
  bounds.round = std::make_unique<RoundBound>(messages, comm);
  return bounds;
}

/// One round's probes: a group per call kind, holding it on every contender, then a group
/// per bound. The calls add zeros (u stays 0: no overflow, no subnormals), all of them on
/// one array sized for max_k. `slots` gets what each probe is, in the same order.
std::vector<std::vector<Probe>> make_probes(std::vector<Contender>& contenders, std::vector<double>& u, Bounds& bounds,
                                            std::vector<Slot>& slots) {
  std::vector<std::vector<Probe>> groups;
  for (const CallKind& kind : call_kinds()) {
    std::vector<Probe>& group = groups.emplace_back();
    for (std::size_t c = 0; c < contenders.size(); ++c) {
      Handle* handle = &contenders[c].handle;
      group.push_back([handle, kind, &u] { run_call(*handle, kind, u.data(), Domain::float64, Op::add); });
      slots.push_back(Slot{"", c, kind, kind.k});
    }
  }
  for (std::size_t b = 0; b < bounds.ks.size(); ++b) {
    groups.push_back({[&stream = *bounds.stream[b]] { stream(); }});
    slots.push_back(Slot{"stream", 0, {}, bounds.ks[b]});
    groups.push_back({[&wire = *bounds.wire[b]] { wire(); }});
    slots.push_back(Slot{"wire", 0, {}, bounds.ks[b]});
  }
  groups.push_back({[&round = *bounds.round] { round(); }});
  slots.push_back(Slot{"round", 0, {}, 1});
  return groups;
}

Record bound_record(const Problem& problem, const Rounds& rounds, const Slot& slot, double seconds,
                    const Bounds& bounds, MPI_Comm comm) {
  Record r = make_record("bound", problem);
  r["bound"] = slot.bound;
  if (slot.bound != "round") r["k"] = slot.k;
  r["repeats"] = rounds.repeats;
  r["calls"] = rounds.calls;
  r["median_seconds"] = seconds;
  if (slot.bound == "wire") {
    const std::size_t b =
        static_cast<std::size_t>(std::find(bounds.ks.begin(), bounds.ks.end(), slot.k) - bounds.ks.begin());
    r["bytes"] = max_over_ranks(bounds.wire[b]->bytes_sent(), comm);
    r["messages"] = max_over_ranks(bounds.wire[b]->messages_sent(), comm);
  }
  return r;
}

Record contender_record(const char* kind, const Problem& problem, const Contender& contender) {
  Record r = make_record(kind, problem);
  r["method"] = contender.name;
  r["chosen"] = contender.chosen();
  return r;
}

/// A call's record; `floor` is stream + wire for its k, `predicted` the model's time.
Record call_record(const Problem& problem, const Rounds& rounds, const Contender& contender, const CallKind& kind,
                   double seconds, double floor, double predicted) {
  Record r = contender_record("call", problem, contender);
  // Auto may serve calls of other sizes with another method (Stats::methods_by_size).
  r["chosen"] = std::string(to_string(contender.handle.stats().method_for(sizeof(double), kind.k)));
  r["call"] = kind.call;
  r["k"] = kind.k;
  r["mode"] = to_string(kind.mode);
  r["repeats"] = rounds.repeats;
  r["calls"] = rounds.calls;
  r["median_seconds"] = seconds;
  r["bound_seconds"] = floor;
  r["ratio"] = floor > 0 ? seconds / floor : 0.0;
  r["overhead_seconds"] = seconds - floor;
  r["predicted_seconds"] = predicted;
  r["measured_over_predicted"] = predicted > 0 ? seconds / predicted : 0.0;
  return r;
}

/// The model's time for every contender, k and layout (gs_many: separate arrays), slowest
/// rank: [contender, k, separate].
using PredictionKey = std::tuple<std::size_t, std::size_t, bool>;
std::map<PredictionKey, double> predictions(const std::vector<Contender>& contenders, std::size_t entries,
                                            const detail::CostModel& model, MPI_Comm comm) {
  std::map<PredictionKey, double> out;
  for (std::size_t c = 0; c < contenders.size(); ++c) {
    const Stats& stats = contenders[c].handle.stats();
    for (const CallKind& kind : call_kinds()) {
      const PredictionKey key{c, kind.k, kind.call == "gs_many"};
      if (!out.count(key))
        out[key] = model.predict(stats.method_for(sizeof(double), kind.k), stats.stages_for(sizeof(double), kind.k),
                                 sizeof(double), kind.k, entries, stats.shared_groups, std::get<2>(key));
    }
  }
  for (auto& [key, seconds] : out) seconds = max_over_ranks(seconds, comm);
  return out;
}

/// Setup time (slowest rank) and memory (fullest rank) of every contender.
void add_setup_records(const Problem& problem, const std::vector<Contender>& contenders, MPI_Comm comm,
                       std::vector<Record>& records) {
  for (const Contender& contender : contenders) {
    const Stats& stats = contender.handle.stats();
    Record setup = contender_record("setup", problem, contender);
    setup["seconds"] = max_over_ranks(stats.setup_seconds, comm);
    setup["auto_seconds"] = max_over_ranks(stats.auto_seconds, comm);
    records.push_back(std::move(setup));
    Record memory = contender_record("memory", problem, contender);
    memory["handle_bytes"] = max_over_ranks(stats.handle_bytes, comm);
    memory["buffer_bytes"] = max_over_ranks(stats.buffer_bytes, comm);
    records.push_back(std::move(memory));
  }
}

}  // namespace

std::vector<Record> measure(const Problem& problem, const Rounds& rounds, const detail::CostModel& model,
                            MPI_Comm comm) {
  // 1. Contenders: a handle per method, and auto.
  std::vector<Contender> contenders = build_contenders(problem.ids, comm);
  const auto pairwise = std::find_if(contenders.begin(), contenders.end(),
                                     [](const Contender& c) { return c.name == to_string(Method::pairwise); });

  // 2. Bounds, on a communicator of their own, from pairwise's messages.
  MPI_Comm bound_comm = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &bound_comm);
  std::vector<Record> records;
  {
    Bounds bounds = make_bounds(problem.ids.size(), pairwise->handle.stats().messages, bound_comm);

    // 3. Probes, and the rounds.
    std::vector<double> u(problem.ids.size() * max_k, 0.0);
    std::vector<Slot> slots;
    const std::vector<double> seconds = time_rounds(make_probes(contenders, u, bounds, slots), rounds, comm);

    // 4. Records: bounds first, so each call can be set against stream + wire of its k.
    std::map<std::size_t, double> floor;
    for (std::size_t p = 0; p < slots.size(); ++p) {
      if (slots[p].bound.empty()) continue;
      records.push_back(bound_record(problem, rounds, slots[p], seconds[p], bounds, comm));
      if (slots[p].bound != "round") floor[slots[p].k] += seconds[p];
    }
    const auto predicted = predictions(contenders, problem.ids.size(), model, comm);
    for (std::size_t p = 0; p < slots.size(); ++p)
      if (slots[p].bound.empty())
        records.push_back(call_record(problem, rounds, contenders[slots[p].contender], slots[p].kind, seconds[p],
                                      floor[slots[p].k],
                                      predicted.at({slots[p].contender, slots[p].k, slots[p].kind.call == "gs_many"})));
  }
  MPI_Comm_free(&bound_comm);
  add_setup_records(problem, contenders, comm, records);
  return records;
}

}  // namespace gsr::tools::bench
