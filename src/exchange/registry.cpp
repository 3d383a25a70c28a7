// exchange/registry.cpp — see registry.hpp. One line per built-in method in `entries` below.
#include "exchange/registry.hpp"

#include "exchange/allreduce.hpp"
#include "exchange/crystal_router.hpp"
#include "exchange/neighbor.hpp"
#include "exchange/pairwise.hpp"

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

namespace gsr::detail {

namespace {

template <class Method>
BuiltExchange build_always(const ExchangeInputs& inputs, const ExchangeLimits&) {
  return {std::make_unique<Method>(inputs), {}};
}

BuiltExchange build_allreduce(const ExchangeInputs& inputs, const ExchangeLimits& limits) {
  const AllreduceExchange::SlotCount slots = AllreduceExchange::count_slots(inputs);
  const std::uint64_t limit = std::min(limits.allreduce_max_slots, ExchangeLimits{}.allreduce_max_slots);
  if (slots.total > limit)
    return {nullptr, "allreduce would need " + std::to_string(slots.total) + " dense slots (" +
                         std::to_string(slots.total * sizeof(double) >> 20) +
                         " MiB per rank for one double), above its limit of " + std::to_string(limit) + " slots"};
  return {std::make_unique<AllreduceExchange>(inputs, slots), {}};
}

// What each built-in method costs beyond its routed messages (registry.hpp).
constexpr MethodTerms pairwise_terms{.posts_receives_early = true};
constexpr MethodTerms router_terms{.routing = Routing::router};
// One collective per call, a second for the rest of rows wider than 8 bytes; paid even
// when P = 1 leaves it no rounds.
constexpr MethodTerms allreduce_terms{
    .routing = Routing::dense, .collectives = 1, .wide_row_collectives = 1, .call_cost_without_messages = true};
// Two neighbourhood collectives per call, the first announcing each neighbour's message;
// none at all when no rank shares an id (neighbor.hpp).
constexpr MethodTerms neighbor_terms{.collectives = 2, .announcement_bytes = 24, .idle_without_sharing = true};

// The C and Fortran codes of the built-in methods (gs.h, gsr.f90) are these, in this order.
std::vector<MethodEntry>& entries() {
  static std::vector<MethodEntry> list{
      {Method::pairwise, "pairwise", &build_always<PairwiseExchange>, pairwise_terms},
      {Method::crystal_router, "crystal_router", &build_always<CrystalRouterExchange>, router_terms},
      {Method::allreduce, "allreduce", &build_allreduce, allreduce_terms},
      {Method::neighbor, "neighbor", &build_always<NeighborExchange>, neighbor_terms},
  };
  return list;
}

// Set by the first read; from then on the list is fixed, so spans of it stay valid and
// readers on any thread need no lock.
std::atomic<bool> closed{false};

}  // namespace

std::span<const MethodEntry> method_registry() noexcept {
  // Written once, so that readers on many threads do not share a line they all write.
  if (!closed.load(std::memory_order_relaxed)) closed.store(true, std::memory_order_release);
  return entries();
}

const MethodEntry* find_method(Method m) noexcept {
  for (const MethodEntry& entry : method_registry())
    if (entry.method == m) return &entry;
  return nullptr;
}

const MethodEntry& method_entry(Method m) {
  const MethodEntry* entry = find_method(m);
  if (!entry)
    throw Error(ErrorCode::invalid_argument,
                "gsr: method code " + std::to_string(static_cast<int>(m)) + " names no exchange method");
  return *entry;
}

void register_method(const MethodEntry& entry) {
  const std::string named = "gsr: register_method('" + std::string(entry.name) + "', code " +
                            std::to_string(static_cast<int>(entry.method)) + "): ";
  if (entry.name.empty() || entry.name == "auto" || !entry.build || entry.method == Method::automatic)
    throw Error(ErrorCode::invalid_argument, named +
                                                 "a method needs a code other than automatic's (0), a name "
                                                 "other than \"auto\" and a build function");
  for (const MethodEntry& known : entries())
    if (known.method == entry.method || known.name == entry.name)
      throw Error(ErrorCode::invalid_argument,
                  named + "the code or the name is taken by '" + std::string(known.name) + "'");
  if (closed.load(std::memory_order_acquire))
    throw Error(ErrorCode::state, named + "the registry was already read; register methods before any setup");
  entries().push_back(entry);
}

BuiltExchange build_exchange(Method m, const ExchangeInputs& inputs, const ExchangeLimits& limits) {
  return method_entry(m).build(inputs, limits);
}

}  // namespace gsr::detail
