// tools/bench/measure.cpp — gsr-bench's measurement in named steps: contenders, bounds,
// probes, rounds, records; then the overlap probes, in rounds of their own.
#include "tools/bench/measure.hpp"

#include "tools/bench/bounds.hpp"
#include "tools/bench/calls.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

namespace gsr::tools::bench {
namespace {

/// What one probe measures, to turn its median into a record.
struct Slot {
  std::string bound;  // "stream", "wire" or "round"; empty for a call
  std::size_t contender = 0;
  CallKind kind;
  std::size_t k = 1;
};

/// The calls' data: `values` zeros starting on a cache line, as the touch bound counts u's
/// lines (gs_many's arrays lie back to back in it, as run_call takes them).
class CallData {
public:
  explicit CallData(std::size_t values) : storage_(values + cache_line_bytes / sizeof(double), 0.0) {
    void* start = storage_.data();
    std::size_t room = storage_.size() * sizeof(double);
    data_ = static_cast<double*>(std::align(cache_line_bytes, values * sizeof(double), start, room));
  }
  CallData(const CallData&) = delete;
  CallData& operator=(const CallData&) = delete;
  double* data() const noexcept { return data_; }

private:
  std::vector<double> storage_;
  double* data_;
};

/// Which entries a call reads or writes: those whose id has another copy, on this rank or
/// another. Stats::active_entries counts them, but the touch bound needs which ones, and a
/// gs add of ones on any handle tells: each entry gets the number of copies of its id on
/// all ranks. (The bench's ids are positive, none flagged, so a lone copy is never
/// touched; an absent id, 0, keeps its 1.)
std::vector<unsigned char> active_entries(Handle& handle) {
  std::vector<double> copies(handle.size(), 1.0);
  handle.apply(std::span(copies), Op::add);
  std::vector<unsigned char> active(copies.size());
  for (std::size_t i = 0; i < copies.size(); ++i) active[i] = copies[i] > 1.5;
  return active;
}

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
std::vector<std::vector<Probe>> make_probes(std::vector<Contender>& contenders, double* u, Bounds& bounds,
                                            std::vector<Slot>& slots) {
  std::vector<std::vector<Probe>> groups;
  for (const CallKind& kind : call_kinds()) {
    std::vector<Probe>& group = groups.emplace_back();
    for (std::size_t c = 0; c < contenders.size(); ++c) {
      Handle* handle = &contenders[c].handle;
      group.push_back([handle, kind, u] { run_call(*handle, kind, u, Domain::float64, Op::add); });
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

/// A call's record; `floor` is stream + wire for its k, `touch_floor` touch + wire for its
/// k, layout and contender, `predicted` the model's time.
Record call_record(const Problem& problem, const Rounds& rounds, const Contender& contender, const CallKind& kind,
                   double seconds, double floor, double touch_floor, double predicted) {
  Record r = contender_record("call", problem, contender);
  // Auto may serve calls of other sizes with another method (Stats::methods_by_size).
  r["chosen"] = std::string(to_string(contender.handle.stats().method_for(sizeof(double), kind.k)));
  r["call"] = kind.call;
  r["k"] = kind.k;
  r["layout"] = kind.layout();
  r["mode"] = to_string(kind.mode);
  r["repeats"] = rounds.repeats;
  r["calls"] = rounds.calls;
  r["median_seconds"] = seconds;
  r["bound_seconds"] = floor;
  r["ratio"] = floor > 0 ? seconds / floor : 0.0;
  r["overhead_seconds"] = seconds - floor;
  r["predicted_seconds"] = predicted;
  r["measured_over_predicted"] = predicted > 0 ? seconds / predicted : 0.0;
  r["touch_bound_seconds"] = touch_floor;
  r["touch_ratio"] = touch_floor > 0 ? seconds / touch_floor : 0.0;
  r["touch_overhead_seconds"] = seconds - touch_floor;
  return r;
}

/// What depends on a contender, k and layout (gs_many: separate arrays): [contender, k,
/// separate].
using KindKey = std::tuple<std::size_t, std::size_t, bool>;
KindKey key_of(std::size_t contender, const CallKind& kind) { return {contender, kind.k, kind.separate()}; }

/// The model's time for every contender, k and layout, slowest rank.
std::map<KindKey, double> predictions(const std::vector<Contender>& contenders, std::size_t entries,
                                      const detail::CostModel& model, MPI_Comm comm) {
  std::map<KindKey, double> out;
  for (std::size_t c = 0; c < contenders.size(); ++c) {
    const Stats& stats = contenders[c].handle.stats();
    for (const CallKind& kind : call_kinds()) {
      const KindKey key = key_of(c, kind);
      if (!out.count(key))
        out[key] = model.predict(stats.method_for(sizeof(double), kind.k), stats.stages_for(sizeof(double), kind.k),
                                 sizeof(double), kind.k, entries, stats.shared_groups, kind.separate());
    }
  }
  for (auto& [key, seconds] : out) seconds = max_over_ranks(seconds, comm);
  return out;
}

/// The touch bound of every contender, k and layout: the stream bound of its k times the
/// largest share over the ranks of the bytes it must move (touch_share). Adds its records
/// and returns the seconds.
std::map<KindKey, double> add_touch_bounds(const Problem& problem, const Rounds& rounds,
                                           const std::vector<Contender>& contenders,
                                           std::span<const unsigned char> active,
                                           const std::map<std::size_t, double>& stream, MPI_Comm comm,
                                           std::vector<Record>& records) {
  std::map<std::pair<std::size_t, bool>, CacheLines> lines;
  for (const CallKind& kind : call_kinds())
    if (!lines.count({kind.k, kind.separate()}))
      lines[{kind.k, kind.separate()}] = count_lines(active, kind.k, kind.separate());
  std::map<KindKey, double> touch;
  for (std::size_t c = 0; c < contenders.size(); ++c) {
    const std::size_t plan_bytes = contenders[c].handle.stats().call_index_bytes;
    for (const CallKind& kind : call_kinds()) {
      const KindKey key = key_of(c, kind);
      if (touch.count(key)) continue;
      const CacheLines& u_lines = lines.at({kind.k, kind.separate()});
      const double share = max_over_ranks(touch_share(u_lines, plan_bytes, active.size(), kind.k), comm);
      touch[key] = stream.at(kind.k) * share;
      Record r = contender_record("bound", problem, contenders[c]);
      r["bound"] = "touch";
      r["k"] = kind.k;
      r["layout"] = kind.layout();
      r["repeats"] = rounds.repeats;
      r["calls"] = rounds.calls;
      r["median_seconds"] = touch[key];
      r["lines"] = max_over_ranks(u_lines.touched, comm);
      r["u_lines"] = max_over_ranks(u_lines.spanned, comm);
      r["plan_bytes"] = max_over_ranks(plan_bytes, comm);
      records.push_back(std::move(r));
    }
  }
  return touch;
}

/// Pieces of the overlap probes' computation with gsr::progress between them.
constexpr std::size_t progress_pieces = 8;

/// How long the drained probe polls gsr::progress for its messages before it waits anyway.
constexpr double drain_limit_seconds = 1.0;

/// The overlap probes' waits: every call's seconds inside Request::wait, per probe.
struct Waits {
  std::vector<double> alone, together, progress, drained, drained_after_pass;
};

/// Polls gsr::progress until it says no message is in flight, or drain_limit_seconds.
void drain() {
  const double until = MPI_Wtime() + drain_limit_seconds;
  while (!gsr::progress() && MPI_Wtime() < until) {
  }
}

/// Times `request.wait()` and keeps its seconds in `into`.
void timed_wait(Request& request, std::vector<double>& into) {
  const double begin = MPI_Wtime();
  request.wait();
  into.push_back(MPI_Wtime() - begin);
}

/// The median over this rank's calls, then the largest over the ranks.
double slowest_median(const std::vector<double>& seconds, MPI_Comm comm) {
  return max_over_ranks(seconds.empty() ? 0.0 : median(seconds), comm);
}

/// The overlap probes, on their own rounds after the main ones (their lengths come from
/// those): every contender's gs (k = 1) started, a stream pass over an array of its own
/// (the caller's computation) about as long as the contender's blocking gs k=1 in the main
/// rounds (`gs_seconds`, at the speed of the stream bound `stream_seconds` over
/// problem.entries values), then waited for; the same with the pass in progress_pieces
/// pieces and gsr::progress between them; the two alone; and the call started, its
/// messages drained with gsr::progress, then waited for, with the pass before the draining
/// and without it. Each probe with a wait also times the wait itself: what is left of the
/// messages' time then is the wait's time beyond the drained probe's on the same caches
/// (folding and scattering only; after the pass, from caches the pass filled with its array).
/// Adds a record per contender.
void add_overlap_records(const Problem& problem, const Rounds& rounds, std::vector<Contender>& contenders, double* u,
                         const std::vector<double>& gs_seconds, double stream_seconds, double wire_seconds,
                         MPI_Comm comm, std::vector<Record>& records) {
  const double per_value = stream_seconds / static_cast<double>(std::max<std::int64_t>(problem.entries, 1));
  std::vector<std::size_t> lengths;  // of each contender's computation, the same on every rank
  for (const double seconds : gs_seconds)
    lengths.push_back(std::max<std::size_t>(1, per_value > 0 ? static_cast<std::size_t>(seconds / per_value) : 1));
  std::vector<double> work(*std::max_element(lengths.begin(), lengths.end()), 0.5);
  std::vector<Waits> waits(contenders.size());  // room for every call, so no timed call allocates
  for (Waits& w : waits)
    for (std::vector<double>* v : {&w.alone, &w.together, &w.progress, &w.drained, &w.drained_after_pass})
      v->reserve(static_cast<std::size_t>(rounds.repeats) * (static_cast<std::size_t>(rounds.calls) + 1));
  // Per contender: the computation, the call, the two together (with and without progress),
  // drained, drained after the pass.
  std::vector<Probe> group;
  for (std::size_t c = 0; c < contenders.size(); ++c) {
    Handle* handle = &contenders[c].handle;
    Waits* w = &waits[c];
    const std::span<double> computation = std::span(work).first(lengths[c]);
    const std::span<double> values(u, handle->size());
    group.push_back([computation] { stream_pass(computation); });
    group.push_back([handle, values, w] {
      Request request = handle->start(values, Op::add);
      timed_wait(request, w->alone);
    });
    group.push_back([handle, values, computation, w] {
      Request request = handle->start(values, Op::add);
      stream_pass(computation);
      timed_wait(request, w->together);
    });
    group.push_back([handle, values, computation, w] {
      Request request = handle->start(values, Op::add);
      const std::size_t piece = (computation.size() + progress_pieces - 1) / progress_pieces;
      for (std::size_t at = 0; at < computation.size(); at += piece) {
        stream_pass(computation.subspan(at, std::min(piece, computation.size() - at)));
        gsr::progress();
      }
      timed_wait(request, w->progress);
    });
    group.push_back([handle, values, w] {
      Request request = handle->start(values, Op::add);
      drain();
      timed_wait(request, w->drained);
    });
    group.push_back([handle, values, computation, w] {
      Request request = handle->start(values, Op::add);
      stream_pass(computation);
      drain();
      timed_wait(request, w->drained_after_pass);
    });
  }
  const std::vector<double> seconds = time_rounds({group}, rounds, comm);
  constexpr std::size_t probes = 6;
  for (std::size_t c = 0; c < contenders.size(); ++c) {
    const double compute = seconds[probes * c], alone = seconds[probes * c + 1], together = seconds[probes * c + 2],
                 with_progress = seconds[probes * c + 3];
    const Waits& w = waits[c];
    const double wait_alone = slowest_median(w.alone, comm), wait_together = slowest_median(w.together, comm),
                 wait_progress = slowest_median(w.progress, comm), wait_drained = slowest_median(w.drained, comm),
                 wait_drained_after_pass = slowest_median(w.drained_after_pass, comm);
    auto hidden = [&](double both) { return wire_seconds > 0 ? (alone + compute - both) / wire_seconds : 0.0; };
    // The wire's share that no wait shows: the wait beyond the drained one on the same caches
    // is message time. After the pass the fold finds its lines evicted (8^3 elements per rank
    // at P = 2: 1.6-1.7x as long, docs/performance.md), which the drained wait without the
    // pass would count as message time.
    auto hidden_at_wait = [&](double wait, double drained) {
      return wire_seconds > 0 ? 1 - std::max(0.0, wait - drained) / wire_seconds : 0.0;
    };
    Record r = contender_record("overlap", problem, contenders[c]);
    r["chosen"] = std::string(to_string(contenders[c].handle.stats().method_for(sizeof(double), 1)));
    r["call"] = "gs";
    r["k"] = 1;
    r["mode"] = to_string(Mode::nonblocking);
    r["repeats"] = rounds.repeats;
    r["calls"] = rounds.calls;
    r["alone_seconds"] = alone;
    r["compute_seconds"] = compute;
    r["together_seconds"] = together;
    r["wire_seconds"] = wire_seconds;
    r["hidden_fraction"] = hidden(together);
    r["together_progress_seconds"] = with_progress;
    r["hidden_fraction_progress"] = hidden(with_progress);
    r["progress_calls"] = progress_pieces;
    r["compute_values"] = lengths[c];
    r["wait_alone_seconds"] = wait_alone;
    r["wait_together_seconds"] = wait_together;
    r["wait_progress_seconds"] = wait_progress;
    r["wait_drained_seconds"] = wait_drained;
    r["wait_drained_after_pass_seconds"] = wait_drained_after_pass;
    r["hidden_fraction_wait"] = hidden_at_wait(wait_together, wait_drained_after_pass);
    r["hidden_fraction_wait_progress"] = hidden_at_wait(wait_progress, wait_drained_after_pass);
    r["hidden_fraction_wait_alone"] = hidden_at_wait(wait_alone, wait_drained);
    records.push_back(std::move(r));
  }
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
    const CallData u(problem.ids.size() * max_k);
    std::vector<Slot> slots;
    const std::vector<double> seconds = time_rounds(make_probes(contenders, u.data(), bounds, slots), rounds, comm);

    // 4. Records: bounds first, so each call can be set against stream + wire of its k,
    // and against touch + wire of its k, layout and contender.
    std::map<std::size_t, double> stream, wire;
    for (std::size_t p = 0; p < slots.size(); ++p) {
      if (slots[p].bound.empty()) continue;
      records.push_back(bound_record(problem, rounds, slots[p], seconds[p], bounds, comm));
      if (slots[p].bound != "round") (slots[p].bound == "stream" ? stream : wire)[slots[p].k] = seconds[p];
    }
    // The entries the calls touch, found after the rounds: its arrays, made and freed
    // before them, would move where the timed arrays lie (glibc then serves them from
    // its heap instead of fresh mappings).
    const std::vector<unsigned char> active = active_entries(pairwise->handle);
    const auto touch = add_touch_bounds(problem, rounds, contenders, active, stream, comm, records);
    const auto predicted = predictions(contenders, problem.ids.size(), model, comm);
    std::vector<double> gs_seconds(contenders.size());  // blocking gs k=1, for the overlap probes
    for (std::size_t p = 0; p < slots.size(); ++p) {
      const Slot& slot = slots[p];
      if (!slot.bound.empty()) continue;
      const KindKey key = key_of(slot.contender, slot.kind);
      records.push_back(call_record(problem, rounds, contenders[slot.contender], slot.kind, seconds[p],
                                    stream[slot.k] + wire[slot.k], touch.at(key) + wire[slot.k], predicted.at(key)));
      if (slot.kind.call == "gs" && slot.kind.mode == Mode::blocking) gs_seconds[slot.contender] = seconds[p];
    }

    // 5. Overlap: what a non-blocking call hides of its messages behind the caller's work.
    // One rank sends nothing, so nothing can hide.
    if (problem.ranks > 1)
      add_overlap_records(problem, rounds, contenders, u.data(), gs_seconds, stream[1], wire[1], comm, records);
  }
  MPI_Comm_free(&bound_comm);
  add_setup_records(problem, contenders, comm, records);
  return records;
}

}  // namespace gsr::tools::bench
