// core/setup.cpp — building a Handle, step by step: check and agree on the arguments,
// duplicate the communicator, discover who shares which id, build the plan, pick and
// build the exchange method, then the statistics.
#include "core/handle_state.hpp"

#include "exchange/registry.hpp"
#include "mpi/checked.hpp"
#include "setup/discovery.hpp"
#include "setup/unique.hpp"
#include "tune/auto_select.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace gsr {
namespace detail {

namespace {

struct MethodRequest {
  Method method = Method::automatic;
  std::string reason;  // why this method ("requested", "GSR_METHOD=..."); empty for auto
};

// Method requested by options or GSR_METHOD (which only overrides automatic).
/// "auto, pairwise, crystal_router, allreduce or neighbor": every name the registry knows.
std::string method_names() {
  std::string names(to_string(Method::automatic));
  const auto methods = method_registry();
  for (std::size_t i = 0; i < methods.size(); ++i)
    names += (i + 1 == methods.size() ? " or " : ", ") + std::string(methods[i].name);
  return names;
}

MethodRequest resolve_method(const SetupOptions& options) {
  if (options.method != Method::automatic && !find_method(options.method))
    throw Error(ErrorCode::invalid_argument, "gsr: unknown method code " + std::to_string(static_cast<int>(options.method)) +
                                                 " (expected " + method_names() + ")");
  if (options.method != Method::automatic) return {options.method, "requested"};
  if (const char* env = std::getenv("GSR_METHOD"); env && *env) {
    const auto m = method_from_string(env);
    if (!m)
      throw Error(ErrorCode::invalid_argument,
                  std::string("gsr: GSR_METHOD='") + env +
                      "' names no method (expected " + method_names() + ")");
    return {*m, std::string("GSR_METHOD=") + env};
  }
  return {};
}

void agree_on_setup_arguments(MPI_Comm comm, Method method, bool unique) {
  int mine[4] = {static_cast<int>(method), -static_cast<int>(method), unique ? 1 : 0, unique ? -1 : 0};
  int all[4];
  GSR_MPI_CHECK(MPI_Allreduce(mine, all, 4, MPI_INT, MPI_MAX, comm));
  if (all[0] != -all[1])
    throw Error(ErrorCode::mismatch, "gsr: ranks disagree about the method (some ask for " +
                                         std::string(to_string(static_cast<Method>(all[0]))) +
                                         ", others for " +
                                         std::string(to_string(static_cast<Method>(-all[1]))) + ")");
  if (all[2] != -all[3])
    throw Error(ErrorCode::mismatch, "gsr: ranks disagree about unique (some pass 0, others 1)");
}

/// Collective over `user_comm`: every rank's arguments are checked and agreed on before
/// anything else collective happens, so a bad argument on one rank fails every rank.
MethodRequest check_setup_arguments(std::span<const std::int64_t> ids, MPI_Comm user_comm,
                                    const SetupOptions& options, double& timeout, CostModel& model) {
  require_communicator(user_comm, "setup");
  MethodRequest request;
  collectively(user_comm, [&] {
    check_ids(ids);
    request = resolve_method(options);
    timeout = timeout_from_environment();
    if (request.method == Method::automatic) model = machine_model_from_environment();
  });
  agree_on_setup_arguments(user_comm, request.method, options.unique);
  return request;
}

/// The plan, and the holders of each shared group that the exchange method is built from.
struct LocalSetup {
  Plan plan;
  Holders holders;
  std::vector<int> neighbors;  // the other ranks that hold any of this rank's shared ids
};

std::vector<int> other_holders(const Holders& holders, int rank) {
  std::vector<int> ranks;
  for (int r : holders.items)
    if (r != rank) ranks.push_back(r);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

LocalSetup discover_and_plan(std::span<const std::int64_t> ids, bool unique, const OwnedComm& comm) {
  const int rank = comm.rank();
  const std::vector<index_t> order = entries_by_id(ids);
  Topology topo = discover(ids, order, comm.get());
  LocalSetup local;
  if (unique) {
    std::vector<std::int64_t> flagged(ids.begin(), ids.end());
    apply_unique(flagged, order, topo, rank);
    local.plan = build_plan(flagged, order, topo, rank, comm.size());
  } else {
    local.plan = build_plan(ids, order, topo, rank, comm.size());
  }
  local.holders = std::move(topo.holders);
  local.neighbors = other_holders(local.holders, rank);
  return local;
}

struct ChosenExchange {
  std::unique_ptr<Exchange> exchange;
  std::string reason;
  std::vector<MethodTiming> auto_timings;
  double auto_seconds = 0;
};

ChosenExchange build_method(const MethodRequest& request, const ExchangeInputs& inputs, const CostModel& model) {
  if (request.method == Method::automatic) {
    AutoChoice choice = choose_method(inputs, model);
    return {std::move(choice.exchange), std::move(choice.reason), std::move(choice.timings), choice.seconds};
  }
  BuiltExchange built = build_exchange(request.method, inputs);
  if (!built.exchange)
    throw Error(ErrorCode::invalid_argument, "gsr: " + built.unavailable + "; choose another method");
  return {std::move(built.exchange), request.reason, {}, 0};
}

Spread spread_over_ranks(MPI_Comm comm, double value, int ranks) {
  double extremes[2] = {value, -value}, out[2];
  double sum = 0;
  GSR_MPI_CHECK(MPI_Allreduce(extremes, out, 2, MPI_DOUBLE, MPI_MAX, comm));
  GSR_MPI_CHECK(MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, comm));
  return Spread{-out[1], sum / ranks, out[0]};
}

/// Collective (the spreads over ranks).
Stats describe(const Plan& plan, std::size_t n, ChosenExchange& chosen, MPI_Comm comm) {
  const Exchange& exchange = *chosen.exchange;
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
  st.global_shared_ids = plan.global_shared_ids;
  st.neighbors = exchange.neighbors();
  st.stages = exchange.stages();
  st.messages = exchange.messages();
  for (const auto& stage : st.stages) {
    st.messages_per_call += stage.messages;
    st.values_per_call += stage.values;
  }
  st.handle_bytes = sizeof(HandleState) + plan.bytes() + exchange.bytes();
  st.neighbors_spread = spread_over_ranks(comm, st.neighbors, plan.ranks);
  st.bytes_spread = spread_over_ranks(comm, static_cast<double>(st.bytes_per_call(sizeof(double))), plan.ranks);
  st.memory_spread = spread_over_ranks(comm, static_cast<double>(st.handle_bytes), plan.ranks);
  return st;
}

std::size_t largest_message_values(const std::vector<StageStats>& stages) {
  std::size_t largest = 0;
  for (const auto& stage : stages) largest = std::max(largest, stage.values);
  return largest;
}

}  // namespace

HandleState::HandleState(OwnedComm owned, Plan built_plan, std::unique_ptr<Exchange> method, Stats setup_stats,
                         CallLedger call_ledger)
    : comm(std::move(owned)), plan(std::move(built_plan)), exchange(std::move(method)),
      max_message_values(largest_message_values(setup_stats.stages)), stats(std::move(setup_stats)),
      ledger(std::move(call_ledger)) {
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
  const double begin = MPI_Wtime();
  double timeout = 0;
  CostModel model;
  const MethodRequest request = check_setup_arguments(ids, user_comm, options, timeout, model);
  OwnedComm comm(user_comm);
  LocalSetup local = discover_and_plan(ids, options.unique, comm);
  ChosenExchange chosen = build_method(request, ExchangeInputs{local.plan, local.holders, comm.get()}, model);
  local.holders = Holders{};  // only the exchange constructors read them
  Stats stats = describe(local.plan, ids.size(), chosen, comm.get());
  static std::uint64_t handles_set_up = 0;  // on this rank; every rank numbers its handles alike
  CallLedger ledger;
  ledger.serial = ++handles_set_up;
  ledger.neighbors = std::move(local.neighbors);
  ledger.timeout = timeout;
  state_ = std::make_shared<HandleState>(std::move(comm), std::move(local.plan), std::move(chosen.exchange),
                                         std::move(stats), std::move(ledger));
  state_->stats.setup_seconds = MPI_Wtime() - begin;

  if (options.verbose && state_->comm.rank() == 0) {
    std::fputs(summary().c_str(), stdout);
    std::fflush(stdout);
  }
}

}  // namespace gsr
