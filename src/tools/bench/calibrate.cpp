// tools/bench/calibrate.cpp — see calibrate.hpp.
#include "tools/bench/calibrate.hpp"

#include "tools/bench/bounds.hpp"

#include "tune/cost_model.hpp"

#include <gsr/error.hpp>
#include <gsr/handle.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <utility>

namespace gsr::tools::bench {
namespace {

using nlohmann::ordered_json;

/// Message sizes of the probes, bytes.
const std::vector<std::size_t> probe_sizes = {0, 8, 64, 512, 4096, 32768, 262144, 1048576};
constexpr int window = 8;                        // messages in flight in the streaming probe
constexpr int probe_tag = 77;                    // on a duplicate communicator of its own
constexpr int link_passes = 3;                   // the link probes' passes (measure_link)
constexpr std::size_t reduce_probe_ids = 16384;  // ids every rank holds in allreduce_cost

/// Least squares of t = a + b n with each point weighted by 1 / t^2, so small and large
/// messages count alike (relative errors). Returns {a, b}.
std::pair<double, double> fit(const std::vector<std::size_t>& n, const std::vector<double>& t) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const double w = 1.0 / std::max(t[i] * t[i], 1e-30);
    const double x = static_cast<double>(n[i]);
    sw += w;
    sx += w * x;
    sy += w * t[i];
    sxx += w * x * x;
    sxy += w * x * t[i];
  }
  const double det = sw * sxx - sx * sx;
  const double b = det != 0 ? (sw * sxy - sx * sy) / det : 0;
  return {(sy - b * sx) / sw, b};
}

/// One probe between rank 0 and `partner` (the other ranks wait in the barriers of
/// time_rounds): ping-pong (round trip / 2) or streaming (per message of a window).
struct LinkProbe {
  MPI_Comm comm;
  int rank, partner;
  std::size_t bytes;
  bool streaming;
  std::vector<char> out, in;

  void operator()() {
    if (rank != 0 && rank != partner) return;
    const int peer = rank == 0 ? partner : 0;
    const int count = static_cast<int>(bytes);
    if (!streaming) {
      if (rank == 0) {
        MPI_Send(out.data(), count, MPI_BYTE, peer, probe_tag, comm);
        MPI_Recv(in.data(), count, MPI_BYTE, peer, probe_tag, comm, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(in.data(), count, MPI_BYTE, peer, probe_tag, comm, MPI_STATUS_IGNORE);
        MPI_Send(out.data(), count, MPI_BYTE, peer, probe_tag, comm);
      }
      return;
    }
    MPI_Request requests[window];
    char ack = 0;
    if (rank == 0) {
      for (int i = 0; i < window; ++i) MPI_Isend(out.data(), count, MPI_BYTE, peer, probe_tag, comm, &requests[i]);
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_BYTE, peer, probe_tag + 1, comm, MPI_STATUS_IGNORE);
    } else {
      for (int i = 0; i < window; ++i)
        MPI_Irecv(in.data() + static_cast<std::size_t>(i) * bytes, count, MPI_BYTE, peer, probe_tag, comm,
                  &requests[i]);
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      MPI_Send(&ack, 1, MPI_BYTE, peer, probe_tag + 1, comm);
    }
  }
};

struct LinkFit {
  std::string link;  // "intra_node" or "inter_node"
  int partner = -1;
  double alpha = 0, beta = 0;
  std::vector<double> ping_pong, streamed;  // seconds per message, per probe size
};

/// Measures the link from rank 0 to `partner` (every rank calls, with the same partner).
LinkFit measure_link(const std::string& link, int partner, const Rounds& rounds, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<std::unique_ptr<LinkProbe>> probes;
  std::vector<std::vector<Probe>> groups;
  for (const std::size_t bytes : probe_sizes)
    for (const bool streaming : {false, true}) {
      auto* p = probes
                    .emplace_back(std::make_unique<LinkProbe>(LinkProbe{
                        comm, rank, partner, bytes, streaming, std::vector<char>(std::max<std::size_t>(bytes, 1), 1),
                        std::vector<char>(std::max<std::size_t>(bytes * window, 1))}))
                    .get();
      groups.push_back({[p] { (*p)(); }});
    }
  // Three passes, each probe's smallest median: a spell of other work on the node (another
  // tenant, a descheduled rank) inflates every probe of a pass alike, and would otherwise
  // be written into the machine file for good.
  std::vector<double> medians = time_rounds(groups, rounds, comm);
  for (int pass = 1; pass < link_passes; ++pass) {
    const std::vector<double> again = time_rounds(groups, rounds, comm);
    for (std::size_t i = 0; i < medians.size(); ++i) medians[i] = std::min(medians[i], again[i]);
  }
  LinkFit f;
  f.link = link;
  f.partner = partner;
  for (std::size_t s = 0; s < probe_sizes.size(); ++s) {
    f.ping_pong.push_back(medians[2 * s] / 2);          // one way
    f.streamed.push_back(medians[2 * s + 1] / window);  // per message of the window
  }
  f.alpha = std::max(fit(probe_sizes, f.ping_pong).first, 1e-9);
  f.beta = std::max(fit(probe_sizes, f.streamed).second, 1e-13);
  return f;
}

struct LocalFit {
  double per_entry = 0, per_value = 0;  // the local pass: n (per_entry + per_value k)
  double stream = 0;                    // the stream bound, per value
  std::size_t entries = 0;              // n of the fullest rank
  double seconds_k1 = 0, seconds_k3 = 0;
};

/// `ids` with every id moved by rank * (the largest id anywhere), so no two ranks share one.
std::vector<std::int64_t> unshared(const std::vector<std::int64_t>& ids, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::int64_t largest = 0;
  for (const std::int64_t id : ids) largest = std::max(largest, id < 0 ? -id : id);
  MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_INT64_T, MPI_MAX, comm);
  std::vector<std::int64_t> own(ids);
  for (std::int64_t& id : own)
    if (id > 0) id += static_cast<std::int64_t>(rank) * largest;
  return own;
}

/// The local pass on `ids` made unshared, timed for k = 1 (gs) and k = 3 (gs_vec), so that
/// its cost splits into a part per entry (walking the index structure) and a part per
/// component; and the stream bound on as many values. Slowest rank. Every rank runs at once,
/// as in a run, so ranks sharing a node's memory bandwidth are measured doing so; or, with
/// `alone`, rank 0 only (a handle of its own over MPI_COMM_SELF, the others idle in the
/// rounds' barriers), with the node's bandwidth all its own.
LocalFit measure_local(const std::vector<std::int64_t>& ids, const Rounds& rounds, MPI_Comm comm, bool alone = false) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<std::int64_t> own;
  if (!alone)
    own = unshared(ids, comm);
  else if (rank == 0)
    own = ids;
  SetupOptions options;
  options.method = Method::pairwise;  // nothing is shared: no method sends anything
  std::optional<Handle> handle;
  if (!alone)
    handle.emplace(own, comm, options);
  else if (rank == 0)
    handle.emplace(own, MPI_COMM_SELF, options);
  std::vector<double> u(3 * own.size(), 0.0);
  StreamBound stream(own.size());
  const std::vector<double> medians = time_rounds({{[&] {
                                                     if (handle)
                                                       handle->apply(std::span<double>(u.data(), own.size()), Op::add);
                                                   }},
                                                   {[&] {
                                                     if (handle) handle->apply_vec(std::span<double>(u), 3, Op::add);
                                                   }},
                                                   {[&] { stream(); }}},
                                                  rounds, comm);
  const double n = static_cast<double>(std::max<std::size_t>(own.size(), 1));
  LocalFit f;
  f.per_value = std::max((medians[1] - medians[0]) / (2 * n), 1e-15);  // k = 3 minus k = 1: two components
  f.per_entry = std::max(medians[0] / n - f.per_value, 1e-15);
  f.stream = medians[2] / n;
  f.entries = static_cast<std::size_t>(max_over_ranks(own.size(), comm));
  f.seconds_k1 = medians[0];
  f.seconds_k3 = medians[1];
  return f;
}

/// The other problems the local curve is sampled on: for a box, boxes of E/2, 3E/2 and 2E
/// elements per axis (those that differ from E and from each other); for a mesh file, 2^dim
/// copies of it with their ids moved apart.
std::vector<std::vector<std::int64_t>> curve_problems(const Problem& problem, MPI_Comm comm) {
  std::vector<std::vector<std::int64_t>> out;
  if (problem.input == "box") {
    const int e = problem.box_elements;
    std::vector<int> sizes;
    for (const int size : {e / 2, (3 * e) / 2, 2 * e})
      if (size >= 1 && size != e && std::find(sizes.begin(), sizes.end(), size) == sizes.end()) sizes.push_back(size);
    for (const int size : sizes) out.push_back(box_problem(problem.dim, size, problem.order, comm).ids);
    return out;
  }
  std::int64_t largest = 0;
  for (const std::int64_t id : problem.ids) largest = std::max(largest, id < 0 ? -id : id);
  MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_INT64_T, MPI_MAX, comm);
  std::vector<std::int64_t> copies;
  for (int c = 0; c < (problem.dim == 3 ? 8 : 4); ++c)
    for (const std::int64_t id : problem.ids) copies.push_back(id > 0 ? id + c * largest : id);
  out.push_back(std::move(copies));
  return out;
}

/// The local pass's factor g(W) per k (1 and 3) at the working sets of the problem (1 by
/// construction) and of the other problems sampled: measured time over n (c_entry +
/// c_value k).
ordered_json local_curve(const LocalFit& base, const std::vector<LocalFit>& others) {
  auto working_set = [](std::size_t n, int k) { return static_cast<double>(n) * (8.0 * k + 4.0); };
  auto factor = [&](const LocalFit& f, double seconds, int k) {
    const double fit = static_cast<double>(f.entries) * (base.per_entry + base.per_value * k);
    return std::max(seconds / std::max(fit, 1e-30), 1e-3);
  };
  ordered_json curve = ordered_json::array();
  for (const int k : {1, 3}) {
    std::vector<std::pair<double, double>> points{{working_set(base.entries, k), 1.0}};
    for (const LocalFit& f : others)
      if (f.entries > 0)
        points.emplace_back(working_set(f.entries, k), factor(f, k == 1 ? f.seconds_k1 : f.seconds_k3, k));
    std::sort(points.begin(), points.end());
    double last = 0;
    for (const auto& [bytes, g] : points) {
      if (bytes <= last) continue;  // the file needs ascending sizes per k
      curve.push_back({{"bytes", bytes}, {"factor", g}, {"k", k}});
      last = bytes;
    }
  }
  return curve;
}

/// Each method's own fixed cost per call (probes, headers, progress; a collective's set-up):
/// a call on a handle of two ids per rank, each shared with one ring neighbour, timed, less
/// what the model without it predicts for that handle (slowest rank, never below 0).
ordered_json call_costs(const detail::CostModel& model, const Rounds& rounds, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::vector<std::int64_t> ids{1 + rank, 1 + (rank + 1) % ranks};
  std::vector<Handle> handles;
  std::vector<Probe> probes;
  std::vector<std::vector<double>> data;
  for (const Method m : registered_methods()) {
    SetupOptions options;
    options.method = m;
    handles.emplace_back(ids, comm, options);
    data.emplace_back(ids.size(), 0.0);
  }
  std::vector<std::vector<Probe>> groups;
  for (std::size_t i = 0; i < handles.size(); ++i)
    groups.push_back({[&, i] { handles[i].apply(std::span<double>(data[i]), Op::add); }});
  const std::vector<double> measured = time_rounds(groups, rounds, comm);
  ordered_json out = ordered_json::object();
  for (std::size_t i = 0; i < handles.size(); ++i) {
    const Stats& st = handles[i].stats();
    const double predicted =
        max_over_ranks(model.predict(st.method, st.stages, sizeof(double), 1, ids.size(), st.shared_groups), comm);
    out[std::string(to_string(registered_methods()[i]))] = std::max(measured[i] - predicted, 0.0);
  }
  return out;
}

/// Two handles of n entries each, timed interleaved with k = 1 (gs) and k = 3 (gs_vec):
/// {a at k = 1, b at k = 1, a at k = 3, b at k = 3}, slowest rank's medians.
std::vector<double> time_k1_k3(Handle& a, Handle& b, std::size_t n, const Rounds& rounds, MPI_Comm comm) {
  std::vector<double> u(3 * n, 0.0), v(3 * n, 0.0);
  return time_rounds({{[&] { a.apply(std::span<double>(u.data(), n), Op::add); }},
                      {[&] { b.apply(std::span<double>(v.data(), n), Op::add); }},
                      {[&] { a.apply_vec(std::span<double>(u), 3, Op::add); }},
                      {[&] { b.apply_vec(std::span<double>(v), 3, Op::add); }}},
                     rounds, comm);
}

/// c_shared: what sharing adds to a call beyond its messages, per shared group and
/// component. A pairwise handle on the problem and the same ids made unshared are timed with
/// k = 1 and 3; the shared one's excess, less the model's messages and pairwise's c_call,
/// over the fullest rank's shared groups times k (least squares through 0 over both k).
double shared_cost(const Problem& problem, const detail::CostModel& model, const Rounds& rounds, MPI_Comm comm) {
  SetupOptions options;
  options.method = Method::pairwise;
  Handle shared(problem.ids, comm, options), alone(unshared(problem.ids, comm), comm, options);
  const std::vector<double> t = time_k1_k3(shared, alone, problem.ids.size(), rounds, comm);
  const Stats& st = shared.stats();
  const double groups = static_cast<double>(max_over_ranks(st.shared_groups, comm));
  double sum_xy = 0, sum_xx = 0;
  for (const int k : {1, 3}) {
    const double messages =
        max_over_ranks(model.predict(Method::pairwise, st.stages, sizeof(double), static_cast<std::size_t>(k)), comm);
    const double excess = (k == 1 ? t[0] - t[1] : t[2] - t[3]) - messages;
    sum_xy += groups * k * excess;
    sum_xx += groups * k * groups * k;
  }
  return sum_xx > 0 ? std::max(sum_xy / sum_xx, 1e-15) : 1e-15;
}

/// c_reduce: allreduce's cost per byte of its dense vector and round beyond what the rest of
/// the model predicts (filling and reading the vector, the MPI library's reduction). Ranks
/// 0 and 1 hold the same `reduce_probe_ids` ids and the others none (so the vector stays
/// that long at any rank count), the vector is long and the local work small; an allreduce and a pairwise handle on
/// them are timed with k = 1 and 3. Both pay the same local pass and shared groups, so allreduce's excess over
/// pairwise, less what the model without c_reduce predicts for that excess, over the vector's bytes times rounds gives
/// c_reduce (least squares through 0). On a mesh box the vector's cost is a few percent of the call, below this
/// machine's noise.
double allreduce_cost(const detail::CostModel& model, const Rounds& rounds, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<std::int64_t> ids(rank < 2 ? reduce_probe_ids : 0);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int64_t>(i + 1);
  SetupOptions options;
  options.method = Method::allreduce;
  Handle reduced(ids, comm, options);
  options.method = Method::pairwise;
  Handle paired(ids, comm, options);
  const std::size_t n = ids.size();
  const std::vector<double> t = time_k1_k3(reduced, paired, n, rounds, comm);
  const Stats& a = reduced.stats();
  const Stats& p = paired.stats();
  double bytes_per_component = 0;
  for (const StageStats& s : a.stages) bytes_per_component += static_cast<double>(s.values) * sizeof(double);
  double sum_xy = 0, sum_xx = 0;
  for (const int k : {1, 3}) {
    const auto kk = static_cast<std::size_t>(k);
    const double modelled =
        max_over_ranks(model.predict(Method::allreduce, a.stages, sizeof(double), kk, n, a.shared_groups), comm) -
        max_over_ranks(model.predict(Method::pairwise, p.stages, sizeof(double), kk, n, p.shared_groups), comm);
    const double excess = k == 1 ? t[0] - t[1] : t[2] - t[3];
    const double x = bytes_per_component * k;
    sum_xy += x * (excess - modelled);
    sum_xx += x * x;
  }
  return sum_xx > 0 ? std::max(sum_xy / sum_xx, 1e-15) : 1e-15;
}

ordered_json link_json(const LinkFit& f) {
  ordered_json j;
  j["partner"] = f.partner;
  j["alpha_seconds"] = f.alpha;
  j["beta_seconds_per_byte"] = f.beta;
  return j;
}

template <class... Args>
std::string cell(const char* pattern, Args... args) {
  char text[512];
  std::snprintf(text, sizeof text, pattern, args...);
  return text;
}

}  // namespace

Calibration calibrate(const Problem& problem, const Rounds& rounds, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  if (ranks < 2)
    throw Error(ErrorCode::invalid_argument,
                "gsr-bench --calibrate needs at least 2 ranks (it measures messages between them)");

  // Who shares rank 0's node: the lowest other rank there, and the lowest rank elsewhere.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_leader = rank;  // the lowest rank of comm on this rank's node
  MPI_Allreduce(MPI_IN_PLACE, &node_leader, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  int intra = ranks, inter = ranks;  // candidates, reduced with MPI_MIN
  if (rank != 0 && node_leader == 0) intra = rank;
  if (node_leader != 0) inter = rank;
  MPI_Allreduce(MPI_IN_PLACE, &intra, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &inter, 1, MPI_INT, MPI_MIN, comm);

  MPI_Comm probes = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &probes);
  std::vector<LinkFit> links;
  if (intra < ranks) links.push_back(measure_link("intra_node", intra, rounds, probes));
  if (inter < ranks) links.push_back(measure_link("inter_node", inter, rounds, probes));
  MPI_Comm_free(&probes);
  const LocalFit local = measure_local(problem.ids, rounds, comm);
  // g(W): the pass on smaller and larger problems, every rank at once and rank 0 alone.
  std::vector<LocalFit> busy, alone;
  for (const std::vector<std::int64_t>& ids : curve_problems(problem, comm)) {
    busy.push_back(measure_local(ids, rounds, comm));
    alone.push_back(measure_local(ids, rounds, comm, true));
  }
  Calibration out;
  const LinkFit& used = links.back();  // inter-node where there is one
  ordered_json& m = out.machine;
  m["format"] = "gsr-machine";
  m["version"] = 1;
  m["alpha_seconds"] = used.alpha;
  m["beta_seconds_per_byte"] = used.beta;
  m["local_seconds_per_entry"] = local.per_entry;
  m["local_seconds_per_value"] = local.per_value;
  m["local_curve"] = local_curve(local, busy);
  m["local_curve_alone"] = local_curve(local, alone);
  detail::CostModel fitted;
  fitted.alpha = used.alpha;
  fitted.beta = used.beta;
  fitted.local_seconds_per_entry = local.per_entry;
  fitted.local_seconds_per_value = local.per_value;
  m["call_seconds"] = call_costs(fitted, rounds, comm);
  for (const Method method : registered_methods()) {
    const auto code = static_cast<std::size_t>(method);
    if (fitted.call_seconds.size() <= code) fitted.call_seconds.resize(code + 1, 0.0);
    fitted.call_seconds[code] = m["call_seconds"][std::string(to_string(method))].get<double>();
  }
  m["shared_seconds_per_value"] = shared_cost(problem, fitted, rounds, comm);
  fitted.shared_seconds_per_value = m["shared_seconds_per_value"].get<double>();
  m["allreduce_seconds_per_byte"] = allreduce_cost(fitted, rounds, comm);
  m["link"] = used.link;
  for (const LinkFit& f : links) m[f.link] = link_json(f);
  m["stream_seconds_per_value"] = local.stream;
  m["ranks"] = ranks;
  m["problem"] = problem.describe();

  for (const LinkFit& f : links)
    for (std::size_t s = 0; s < probe_sizes.size(); ++s)
      for (const bool streaming : {false, true}) {
        Record r = make_record("calibration", problem);
        r["probe"] = streaming ? "streaming" : "ping_pong";
        r["link"] = f.link;
        r["message_bytes"] = probe_sizes[s];
        r["median_seconds"] = streaming ? f.streamed[s] : f.ping_pong[s];
        const double model = f.alpha + f.beta * static_cast<double>(probe_sizes[s]);
        r["model_seconds"] = model;
        out.records.push_back(std::move(r));
      }
  return out;
}

std::string calibration_table(const ordered_json& metadata, const Calibration& c) {
  const ordered_json& m = c.machine;
  std::string text = cell("gsr-bench --calibrate: %d ranks, %s\n", metadata.at("ranks").get<int>(),
                          metadata.at("problem").get<std::string>().c_str());
  text += cell("  %s (%u CPUs), %s, %s\n\n", metadata.at("cpu_model").get<std::string>().c_str(),
               metadata.at("cpus").get<unsigned>(), metadata.at("mpi_library").get<std::string>().c_str(),
               metadata.at("date").get<std::string>().c_str());
  text += "messages: one-way seconds per message, measured and alpha + beta n\n";
  text += cell("  %-11s %10s %14s %14s %14s %14s\n", "link", "bytes", "ping-pong us", "streamed us", "model us",
               "pp / model");
  for (std::size_t i = 0; i + 1 < c.records.size(); i += 2) {
    const Record& pp = c.records[i];
    const Record& st = c.records[i + 1];
    const double model = pp.at("model_seconds").get<double>();
    text +=
        cell("  %-11s %10llu %14.3f %14.3f %14.3f %13.2fx\n", pp.at("link").get<std::string>().c_str(),
             pp.at("message_bytes").get<unsigned long long>(), 1e6 * pp.at("median_seconds").get<double>(),
             1e6 * st.at("median_seconds").get<double>(), 1e6 * model, pp.at("median_seconds").get<double>() / model);
  }
  text += cell("\nalpha = %.3f us per message, beta = %.4f ns per byte (%.2f GB/s), from the %s link\n",
               1e6 * m.at("alpha_seconds").get<double>(), 1e9 * m.at("beta_seconds_per_byte").get<double>(),
               1e-9 / m.at("beta_seconds_per_byte").get<double>(), m.at("link").get<std::string>().c_str());
  text += cell("local pass: %.3f ns per entry + %.3f ns per component (stream bound: %.3f ns per value)\n",
               1e9 * m.at("local_seconds_per_entry").get<double>(), 1e9 * m.at("local_seconds_per_value").get<double>(),
               1e9 * m.at("stream_seconds_per_value").get<double>());
  for (const char* curve : {"local_curve", "local_curve_alone"}) {
    text += curve == std::string("local_curve") ? "  times g(W) for a working set of W bytes, every rank busy:"
                                                : "\n  and for a rank alone on its node:";
    for (const auto& point : m.at(curve))
      text += cell(" k=%d %.3g MB %.2f;", point.at("k").get<int>(), 1e-6 * point.at("bytes").get<double>(),
                   point.at("factor").get<double>());
  }
  text += cell("\nper shared group and component: %.3f ns", 1e9 * m.at("shared_seconds_per_value").get<double>());
  text += cell("\nallreduce, per byte of its vector and round: %.3f ns",
               1e9 * m.at("allreduce_seconds_per_byte").get<double>());
  text += "\nfixed cost per call of each method, us:";
  for (const auto& [name, seconds] : m.at("call_seconds").items())
    text += cell(" %s %.2f;", name.c_str(), 1e6 * seconds.get<double>());
  text += "\n";
  return text;
}

}  // namespace gsr::tools::bench
