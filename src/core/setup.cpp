// core/setup.cpp — building a Handle, step by step: check and agree on the arguments,
// duplicate the communicator, discover who shares which id, build the plan, pick and
// build the exchange method, then the statistics.
#include "core/handle_state.hpp"

#include "config/config.hpp"
#include "exchange/registry.hpp"
#include "mpi/checked.hpp"
#include "mpi/polled.hpp"
#include "mpi/threads.hpp"
#include "setup/discovery.hpp"
#include "setup/unique.hpp"
#include "tune/auto_select.hpp"

#include <algorithm>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gsr {
namespace detail {

namespace {

struct MethodRequest {
  Method method = Method::automatic;  // with a table: the method for one double
  std::string reason;                 // why this method ("requested", "GSR_METHOD=..."); empty for auto
  std::vector<SizeMethod> table;      // a method table's per-size form; empty otherwise
};

// Method requested by options.method, or else by a method table (SetupOptions::method_table
// or GSR_METHOD).
/// "auto, pairwise, crystal_router, allreduce or neighbor": every name the registry knows.
std::string method_names() {
  std::string names(to_string(Method::automatic));
  const auto methods = method_registry();
  for (std::size_t i = 0; i < methods.size(); ++i)
    names += (i + 1 == methods.size() ? " or " : ", ") + std::string(methods[i].name);
  return names;
}

// A method table (GSR_METHOD, or the option named so): one method name, or a table
// "m0,m1:B1,m2:B2,..." (m0 below B1 bytes per entry, m1 from B1, ...; B ascending), as
// auto's own table (docs/methods.md).
MethodRequest method_from_table(const NamedText& setting) {
  const std::string& value = setting.text;
  const std::string named = std::string(setting.named_by) + "='" + value + "'";
  MethodRequest request;
  request.reason = std::string(setting.named_by) + "=" + value;
  if (value.find_first_of(",:") == std::string::npos) {
    const auto m = method_from_string(value);
    if (!m)
      throw Error(ErrorCode::invalid_argument, "gsr: " + named + " names no method (expected " + method_names() +
                                                   ", or a table such as crystal_router,pairwise:64)");
    request.method = *m;
    if (request.method == Method::automatic) request.reason.clear();
    return request;
  }
  auto bad = [&](const std::string& what) {
    throw Error(ErrorCode::invalid_argument, "gsr: " + named + " is not a table of methods per call size: " + what +
                                                 " (expected method,method:bytes,... with bytes per entry ascending, "
                                                 "as in crystal_router,pairwise:64)");
  };
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = std::min(value.find(',', begin), value.size());
    const std::string item = value.substr(begin, end - begin);
    const std::size_t colon = item.find(':');
    const std::string name = item.substr(0, colon);
    const auto m = method_from_string(name);
    if (!m) bad("'" + name + "' names no method (" + method_names() + ")");
    if (*m == Method::automatic) bad("auto cannot be in a table");
    if (request.table.empty() && colon != std::string::npos)
      bad("the first method, '" + name + "', serves every size below the next and takes no size");
    SizeMethod range{0, *m, {}};
    if (!request.table.empty()) {
      if (colon == std::string::npos) bad("'" + name + "' has no size (method:bytes)");
      const std::string bytes = item.substr(colon + 1);
      char* rest = nullptr;
      errno = 0;
      const unsigned long long b =
          bytes.empty() || bytes[0] < '0' || bytes[0] > '9' ? 0 : std::strtoull(bytes.c_str(), &rest, 10);
      if (b == 0 || errno != 0 || *rest != '\0' || b <= request.table.back().entry_bytes)
        bad("'" + name + "' has the size '" + bytes + "', not a whole number of bytes above the previous one's");
      range.entry_bytes = static_cast<std::size_t>(b);
    }
    request.table.push_back(range);
    if (end == value.size()) break;
    begin = end + 1;
  }
  // Consecutive ranges of one method are one range ("pairwise,pairwise:64" is pairwise).
  std::vector<SizeMethod> merged;
  for (const SizeMethod& range : request.table)
    if (merged.empty() || merged.back().method != range.method) merged.push_back(range);
  request.table = std::move(merged);
  Stats lookup;
  lookup.methods_by_size = request.table;
  request.method = lookup.method_for(sizeof(double));
  if (request.table.size() == 1) request.table.clear();
  return request;
}

MethodRequest resolve_method(const SetupOptions& options, const HandleSettings& settings) {
  if (options.method != Method::automatic && !find_method(options.method))
    throw Error(ErrorCode::invalid_argument, "gsr: unknown method code " +
                                                 std::to_string(static_cast<int>(options.method)) + " (expected " +
                                                 method_names() + ")");
  if (options.method != Method::automatic) return {options.method, "requested", {}};
  if (!settings.method_table.text.empty()) return method_from_table(settings.method_table);
  return {};
}

// A checksum of a method table (0 for none), for the agreement below.
int table_checksum(const std::vector<SizeMethod>& table) {
  std::uint64_t h = 1469598103934665603ull;
  for (const SizeMethod& range : table) {
    for (const std::uint64_t v :
         {static_cast<std::uint64_t>(range.entry_bytes), static_cast<std::uint64_t>(range.method)})
      h = (h ^ v) * 1099511628211ull;
  }
  return table.empty() ? 0 : static_cast<int>(h & 0x3fffffff) + 1;
}

// Polled (polled.hpp): a rank that gave up on the step before (its GSR_TIMEOUT ran out while
// this one had not arrived yet) never joins this one.
void agree_on_setup_arguments(MPI_Comm comm, const MethodRequest& request, bool unique, double timeout) {
  const int method = static_cast<int>(request.method), table = table_checksum(request.table);
  int all[6] = {method, -method, unique ? 1 : 0, unique ? -1 : 0, table, -table};
  allreduce_polled(all, 6, MPI_INT, MPI_MAX, comm, timeout);
  if (all[0] != -all[1])
    throw Error(ErrorCode::mismatch, "gsr: ranks disagree about the method (some ask for " +
                                         std::string(to_string(static_cast<Method>(all[0]))) + ", others for " +
                                         std::string(to_string(static_cast<Method>(-all[1]))) + ")");
  if (all[4] != -all[5])
    throw Error(ErrorCode::mismatch,
                "gsr: ranks disagree about the method for some call sizes (their GSR_METHOD tables differ)");
  if (all[2] != -all[3]) throw Error(ErrorCode::mismatch, "gsr: ranks disagree about unique (some pass 0, others 1)");
}

/// Collective over `user_comm`: every rank's arguments and settings (options, environment)
/// are checked and agreed on before anything else collective happens, so a bad argument or
/// variable on one rank fails every rank.
MethodRequest check_setup_arguments(std::span<const std::int64_t> ids, MPI_Comm user_comm, const SetupOptions& options,
                                    HandleSettings& settings, CostModel& model) {
  require_communicator(user_comm, "setup");
  MethodRequest request;
  collectively(user_comm, timeout_or_default(options.messages), [&] {
    check_ids(ids);
    settings = resolve(options);
    request = resolve_method(options, settings);
    if (request.method == Method::automatic) model = machine_model(settings.machine_file);
  });
  agree_on_setup_arguments(user_comm, request, options.unique, settings.messages.timeout);
  return request;
}

/// The plan, and the holders of each shared group that the exchange method is built from.
struct LocalSetup {
  Plan plan;
  Holders holders;
  std::vector<int> neighbors;              // the other ranks that hold any of this rank's shared ids
  std::vector<PeerIds> pairwise_receives;  // Stats::pairwise_receives
};

// What gslib's pairwise method receives (its pw_data_nmsg / pw_data_size): from each other
// rank, the shared ids that rank holds unflagged; with `unique`, only the owner of an id
// holds it unflagged. An id no rank holds unflagged is not shared for gslib (it pairs ranks
// only where one holds the id unflagged), with or without `unique`. Ranks ascending.
std::vector<PeerIds> gslib_pairwise_receives(const Topology& topo, bool unique, int rank) {
  std::map<int, std::size_t> counts;
  for (std::size_t s = 0; s < topo.shared_ids.size(); ++s) {
    const std::span<const int> ranks = topo.holders.row(s);
    const std::size_t first = topo.holders.offsets[s];
    const std::span<const unsigned char> unflagged{topo.holder_unflagged.data() + first, ranks.size()};
    if (std::none_of(unflagged.begin(), unflagged.end(), [](unsigned char u) { return u != 0; })) continue;
    const int owner = unique ? unique_owner(topo.shared_ids[s], ranks, unflagged) : -1;
    for (std::size_t h = 0; h < ranks.size(); ++h)
      if (ranks[h] != rank && (unique ? ranks[h] == owner : unflagged[h] != 0)) ++counts[ranks[h]];
  }
  std::vector<PeerIds> receives;
  for (const auto& [peer, ids] : counts) receives.push_back({peer, ids});
  return receives;
}

std::vector<int> other_holders(const Holders& holders, int rank) {
  std::vector<int> ranks;
  for (int r : holders.items)
    if (r != rank) ranks.push_back(r);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

LocalSetup discover_and_plan(std::span<const std::int64_t> ids, bool unique, const OwnedComm& comm,
                             const MessageSettings& messages) {
  const int rank = comm.rank();
  const std::vector<index_t> order = entries_by_id(ids);
  Topology topo = discover(ids, order, comm.get(), messages.chunk_bytes, messages.timeout);
  LocalSetup local;
  if (unique) {
    std::vector<std::int64_t> flagged(ids.begin(), ids.end());
    apply_unique(flagged, order, topo, rank);
    local.plan = build_plan(flagged, order, topo, rank, comm.size());
  } else {
    local.plan = build_plan(ids, order, topo, rank, comm.size());
  }
  local.pairwise_receives = gslib_pairwise_receives(topo, unique, rank);
  local.holders = std::move(topo.holders);
  local.neighbors = other_holders(local.holders, rank);
  return local;
}

struct ChosenExchange {
  std::vector<std::unique_ptr<Exchange>> exchanges;  // [0]: the method for one double
  std::vector<HandleState::MethodRange> ranges;      // which serves which call sizes
  std::string reason;
  std::vector<MethodTiming> auto_timings;
  double auto_seconds = 0;
};

// A table of sizes (ascending, the first standing for every smaller size) and the exchange
// serving each, as ranges: consecutive sizes of one exchange merged, none if one serves all.
std::vector<HandleState::MethodRange> ranges_of(const std::vector<std::size_t>& sizes,
                                                const std::vector<std::uint8_t>& exchange_at) {
  std::vector<HandleState::MethodRange> ranges;
  for (std::size_t s = 0; s < exchange_at.size(); ++s)
    if (ranges.empty() || ranges.back().exchange != exchange_at[s])
      ranges.push_back({ranges.empty() ? 0 : sizes[s], exchange_at[s]});
  if (ranges.size() == 1) ranges.clear();
  return ranges;
}

/// A wait of auto's timed calls: Error(timeout) after `timeout` seconds (0: no limit).
class TimeoutWatch final : public WaitWatch {
public:
  explicit TimeoutWatch(double timeout) : timeout_(timeout) {}
  void waiting(const Workspace&, double seconds) override {
    if (timeout_ > 0 && seconds > timeout_) throw timeout_error(seconds, timeout_, collective_step);
  }

private:
  double timeout_;
};

// A call as auto times it: the handle's own per-call path (handle.cpp), in the order a
// blocking call runs it, on a scratch array of the handle's entries (zeros: no call turns
// them into subnormals or infinities), grown to the call's size on first use.
// Its waits give up after GSR_TIMEOUT (a rank that left the setup never joins the call).
CallPath timed_call(const Plan& plan, std::size_t prefetch_from_bytes, std::vector<std::byte>& values,
                    const TimeoutWatch& watch) {
  return [&plan, prefetch_from_bytes, &values, &watch](Exchange& exchange, Workspace& ws) {
    const std::size_t bytes = plan.n * ws.info.k * ws.kernels->value_size;
    if (values.size() < bytes) values.resize(bytes);
    const DataRef data{values.data(), nullptr, ws.info.k, false};
    gather_and_start(plan, exchange, ws, data);
    reduce_alone(plan, ws, data, prefetch_from_bytes);
    TimeoutWatch bounded = watch;
    exchange.finish(ws, &bounded);
    fold_and_scatter(plan, ws, data);
  };
}

ChosenExchange build_method(const MethodRequest& request, const ExchangeInputs& inputs, const CostModel& model,
                            std::size_t prefetch_from_bytes) {
  if (request.method == Method::automatic) {
    std::vector<std::byte> values;
    const TimeoutWatch watch(inputs.messages.timeout);
    AutoChoice choice = choose_method(inputs, timed_call(inputs.plan, prefetch_from_bytes, values, watch), model);
    return {std::move(choice.exchanges), ranges_of(choice.sizes, choice.exchange_at), std::move(choice.reason),
            std::move(choice.timings), choice.seconds};
  }
  ChosenExchange chosen;
  chosen.reason = request.reason;
  // The method for one double first, then the table's others in table order (the same
  // order on every rank: the table was agreed on).
  std::vector<Method> methods{request.method};
  for (const SizeMethod& range : request.table)
    if (std::find(methods.begin(), methods.end(), range.method) == methods.end()) methods.push_back(range.method);
  for (const Method m : methods) {
    BuiltExchange built = build_exchange(m, inputs);
    if (!built.exchange)
      throw Error(ErrorCode::invalid_argument, "gsr: " + built.unavailable + "; choose another method");
    chosen.exchanges.push_back(std::move(built.exchange));
  }
  std::vector<std::size_t> sizes;
  std::vector<std::uint8_t> exchange_at;
  for (const SizeMethod& range : request.table) {
    sizes.push_back(range.entry_bytes);
    exchange_at.push_back(
        static_cast<std::uint8_t>(std::find(methods.begin(), methods.end(), range.method) - methods.begin()));
  }
  chosen.ranges = ranges_of(sizes, exchange_at);
  return chosen;
}

/// The spreads over ranks of `values` (two polled collectives for all of them).
std::vector<Spread> spreads_over_ranks(MPI_Comm comm, const std::vector<double>& values, int ranks, double timeout) {
  const std::size_t n = values.size();
  std::vector<double> extremes(2 * n), sums(values);
  for (std::size_t i = 0; i < n; ++i) extremes[2 * i] = values[i], extremes[2 * i + 1] = -values[i];
  allreduce_polled(extremes.data(), static_cast<int>(extremes.size()), MPI_DOUBLE, MPI_MAX, comm, timeout);
  allreduce_polled(sums.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, comm, timeout);
  std::vector<Spread> spreads;
  for (std::size_t i = 0; i < n; ++i) spreads.push_back(Spread{-extremes[2 * i + 1], sums[i] / ranks, extremes[2 * i]});
  return spreads;
}

/// Collective (the spreads over ranks).
Stats describe(const Plan& plan, std::size_t n, ChosenExchange& chosen, MPI_Comm comm, double timeout) {
  const Exchange& exchange = *chosen.exchanges.front();
  Stats st;
  st.method = exchange.method();
  st.method_reason = std::move(chosen.reason);
  st.auto_timings = std::move(chosen.auto_timings);
  st.auto_seconds = chosen.auto_seconds;
  st.ranks = plan.ranks;
  st.local_entries = n;
  st.active_entries = plan.active_entries();
  st.shared_groups = plan.shared_groups;
  st.local_groups = plan.local_groups();
  for (const Plan::FixedRun& run : plan.fixed_runs) st.fixed_kernel_groups += run.groups;
  for (const Plan::SharedRun& run : plan.shared_runs) st.fixed_kernel_groups += run.groups;
  st.general_kernel_groups = st.local_groups + st.shared_groups - st.fixed_kernel_groups;
  st.global_shared_ids = plan.global_shared_ids;
  st.neighbors = exchange.neighbors();
  st.stages = exchange.stages();
  st.messages = exchange.messages();
  for (const auto& stage : st.stages) {
    st.messages_per_call += stage.messages;
    st.values_per_call += stage.values;
  }
  st.handle_bytes = sizeof(HandleState) + plan.bytes();
  for (const auto& method : chosen.exchanges) st.method_bytes += method->bytes();
  st.handle_bytes += st.method_bytes;
  st.call_index_bytes = plan.call_bytes() + exchange.call_bytes();
  for (const HandleState::MethodRange& range : chosen.ranges) {
    const Exchange& serving = *chosen.exchanges[range.exchange];
    st.methods_by_size.push_back(SizeMethod{range.entry_bytes, serving.method(), serving.stages()});
  }
  const std::vector<Spread> spreads =
      spreads_over_ranks(comm,
                         {static_cast<double>(st.neighbors), static_cast<double>(st.bytes_per_call(sizeof(double))),
                          static_cast<double>(st.handle_bytes)},
                         plan.ranks, timeout);
  st.neighbors_spread = spreads[0];
  st.bytes_spread = spreads[1];
  st.memory_spread = spreads[2];
  return st;
}

std::size_t largest_message_values(const std::vector<std::unique_ptr<Exchange>>& exchanges) {
  std::size_t largest = 0;
  for (const auto& method : exchanges)
    for (const auto& stage : method->stages()) largest = std::max(largest, stage.values);
  return largest;
}

}  // namespace

HandleState::HandleState(OwnedComm owned, Plan built_plan, std::vector<std::unique_ptr<Exchange>> methods,
                         std::vector<MethodRange> method_ranges, Stats setup_stats, CallLedger call_ledger)
    : comm(std::move(owned)), plan(std::move(built_plan)), exchanges(std::move(methods)),
      ranges(std::move(method_ranges)), max_message_values(largest_message_values(exchanges)),
      stats(std::move(setup_stats)), ledger(std::move(call_ledger)) {
  ledger.comm = comm.get();
  track(&ledger);
}

HandleState::~HandleState() {
  untrack(&ledger);
  retire(std::move(ledger), std::move(comm));
}

}  // namespace detail

Handle::Handle(std::span<const std::int64_t> ids, MPI_Comm user_comm, SetupOptions options) {
  using namespace detail;
  const ThreadEntry entry(nullptr);
  const double begin = MPI_Wtime();
  HandleSettings settings;
  CostModel model;
  const MethodRequest request = check_setup_arguments(ids, user_comm, options, settings, model);
  OwnedComm comm(user_comm, settings.messages.timeout);
  const int node_ranks = comm.ranks_on_node(settings.messages.timeout);  // every rank, whatever its prefetch setting
  const std::size_t prefetch_from_bytes =
      settings.prefetch_from_bytes ? *settings.prefetch_from_bytes : prefetch_default(probe_cache(), node_ranks);
  LocalSetup local = discover_and_plan(ids, options.unique, comm, settings.messages);
  ChosenExchange chosen = build_method(
      request, ExchangeInputs{local.plan, local.holders, comm.get(), settings.messages}, model, prefetch_from_bytes);
  local.holders = Holders{};  // only the exchange constructors read them
  Stats stats = describe(local.plan, ids.size(), chosen, comm.get(), settings.messages.timeout);
  stats.pairwise_receives = std::move(local.pairwise_receives);
  // On this rank; every rank numbers its handles alike (threads setting up at once: in the
  // order they get here).
  static std::atomic<std::uint64_t> handles_set_up{0};
  CallLedger ledger;
  ledger.serial = handles_set_up.fetch_add(1, std::memory_order_relaxed) + 1;
  ledger.neighbors = std::move(local.neighbors);
  ledger.timeout = settings.messages.timeout;
  state_ = std::make_shared<HandleState>(std::move(comm), std::move(local.plan), std::move(chosen.exchanges),
                                         std::move(chosen.ranges), std::move(stats), std::move(ledger));
  state_->prefetch_from_bytes = prefetch_from_bytes;
  state_->stats.setup_seconds = MPI_Wtime() - begin;

  if ((options.verbose || options.announce) && !settings.quiet && state_->comm.rank() == 0) {
    std::fputs((options.verbose ? summary() : summary_line() + "\n").c_str(), stdout);
    std::fflush(stdout);
  }
}

}  // namespace gsr
